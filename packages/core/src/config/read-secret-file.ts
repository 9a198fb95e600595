import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';

/** A secret file larger than this is not a key: refused rather than held in memory. */
const SECRET_MAX_BYTES = 1024 * 1024;

/**
 * Reads a file named by a `*_file` field whole, as UTF-8, with one trailing newline (`\n` or
 * `\r\n`) dropped: what `echo key > file` and a Kubernetes secret mount give. A relative path is
 * taken from the working directory. Synchronous: it runs at start-up and while a reload is
 * prepared, on files of a few bytes.
 *
 * @param field - the config path named in the error (`auth.jwt.public_key_file`)
 * @throws ConfigError naming the field and the absolute path, never the content, when the file
 *   is missing, unreadable, empty or larger than `maxBytes` (default 1 MiB)
 */
export function readSecretFile(path: string, field: string, maxBytes = SECRET_MAX_BYTES): string {
  const absolute = resolve(path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`;
    throw new ConfigError({ path: field, message: `file ${absolute} ${why}` });
  }
  if (bytes.length > maxBytes) {
    throw new ConfigError({ path: field, message: `file ${absolute} is larger than ${maxBytes} bytes` });
  }
  const text = bytes.toString('utf8').replace(/\r?\n$/, '');
  if (text === '') throw new ConfigError({ path: field, message: `file ${absolute} is empty` });
  return text;
}
