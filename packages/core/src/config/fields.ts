import { z } from 'zod';

const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Longest environment variable name accepted, so no error or log line ever repeats a huge one. */
export const NAME_MAX_LENGTH = 128;

/** A non-empty string. */
export const text = z.string().min(1, 'must not be empty');

/** The name of an environment variable (the value is read elsewhere, never here). */
export const envVarName = z
  .string()
  .max(NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`)
  .regex(ENV_VAR_NAME, 'must be an environment variable name (letters, digits, _)');

/** A claim name or a dot path into nested claims. */
export const claimPath = z
  .string()
  .regex(/^[^.]+(\.[^.]+)*$/, 'must be a claim name or a dot path such as realm_access.roles');

/**
 * An http(s) URL to fetch keys or metadata from. User info (`https://user:pass@host`) is refused
 * at start-up: `fetch` refuses such URLs, so every request would fail later instead.
 */
export const keySetUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .refine(
    (url) => URL.canParse(url) && withoutUserInfo(new URL(url)),
    'must not hold a user name or password (fetch refuses such URLs)',
  );

function withoutUserInfo(url: URL): boolean {
  return url.username === '' && url.password === '';
}

/** An integer from `min` to `max`; one message names both bounds. */
export function intRange(min: number, max: number) {
  const message = `must be ${min} to ${max}`;
  return z.int().min(min, message).max(max, message);
}

/** A rule broken across fields, at its path from the config's root (`['auth', 'jwt', 'issuer']`). */
export interface SectionIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/**
 * A Redis URL (`redis://`, or `rediss://` for TLS) of a store shared by every replica; it may hold
 * a password, so it is shown only redacted (`redactUrl`).
 */
export const redisUrl = z
  .string()
  .regex(/^rediss?:\/\/./, 'must be a redis:// (or rediss://) URL')
  .refine((url) => URL.canParse(url), 'must be a redis:// (or rediss://) URL');

/** The path of a file holding key material (read elsewhere, never here); no NUL, at most 4096 characters. */
export const filePath = z
  .string()
  .min(1, 'must not be empty')
  .max(4096, 'must be at most 4096 characters')
  .regex(/^[^\x00]+$/, 'must be a file path');
