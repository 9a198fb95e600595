import { createHash, randomBytes } from 'node:crypto';
import { UsageError } from './settings.js';

/** A fresh API key and what `hash_env` holds for it. */
export interface NewApiKey {
  /** 32 random bytes, base64url (43 characters): give it to the client. */
  readonly key: string;
  /** The hex SHA-256 of the key's bytes: put it in the variable `hash_env` names. */
  readonly sha256: string;
}

/**
 * `main.js --new-key`: 32 bytes from the operating system's CSPRNG, base64url-encoded (so the key
 * works in the header and as a Bearer token), and its SHA-256 in hex, as `hash_env` expects it
 * (the same as `printf %s "$KEY" | sha256sum`). With a prefix (`--prefix sk_live`), a checksummed
 * key instead: `sk_live_<32 base62>_<checksum>`, for `format: checksummed`.
 *
 * @throws UsageError for a prefix that is not a letter followed by letters, digits and `_`
 */
export async function newApiKey(prefix: string | null = null): Promise<NewApiKey> {
  const key = prefix === null ? randomBytes(32).toString('base64url') : await checksummedKey(prefix);
  return { key, sha256: createHash('sha256').update(key, 'utf8').digest('hex') };
}

/**
 * The checksummed key format is the API key mode's: its package is imported for `--prefix` alone,
 * so the service names no mode package in its own code and serves whichever ones are installed.
 */
async function checksummedKey(prefix: string): Promise<string> {
  const { newChecksummedKey } = await import('@authlayer/api-key');
  try {
    return newChecksummedKey(prefix);
  } catch (error) {
    // `the prefix must be ...`: said of the flag that gave it.
    if (error instanceof TypeError) throw new UsageError(error.message.replace(/^the prefix/, '--prefix'));
    throw error;
  }
}

/** Two lines on stdout, each `label: value`, easy to read and to cut in a script. */
export function formatNewApiKey({ key, sha256 }: NewApiKey): string {
  return `key: ${key}\nsha256: ${sha256}\n`;
}
