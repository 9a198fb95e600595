import { newChecksummedKey } from '@authlayer/api-key';
import { createHash, randomBytes } from 'node:crypto';

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
 * @throws TypeError for a prefix that is not a letter followed by letters, digits and `_`
 */
export function newApiKey(prefix: string | null = null): NewApiKey {
  const key = prefix === null ? randomBytes(32).toString('base64url') : newChecksummedKey(prefix);
  return { key, sha256: createHash('sha256').update(key, 'utf8').digest('hex') };
}

/** Two lines on stdout, each `label: value`, easy to read and to cut in a script. */
export function formatNewApiKey({ key, sha256 }: NewApiKey): string {
  return `key: ${key}\nsha256: ${sha256}\n`;
}
