import {
  ConfigError,
  apiKeyVariable,
  type ApiKeyEntryConfig,
  type AuthConfig,
  type ConfigIssue,
  type HandlerDeps,
} from '@authlayer/core';
import { isChecksummedKey, prefixOf } from './checksummed-key.js';
import { sha256Of } from './key-table.js';

/** An expected key as read at start-up: where it is configured, who it is, its SHA-256. */
export interface ExpectedKey {
  /** The config path of its entry: `auth.api_keys.keys[0]`, or `auth.api_keys.env_var` / `.prefix`. */
  readonly path: string;
  /** The variable it was read from, and how that variable holds it. */
  readonly variable: string;
  readonly source: 'env_var' | 'hash_env';
  /** The client: `name`, or the variable's name for the spec's single key. */
  readonly name: string;
  readonly roles: readonly string[];
  readonly tenantId: string | null;
  readonly expires: string | null;
  readonly created: string | null;
  /** SHA-256 of the key's bytes. Start-up only: the key table keeps a keyed digest of it. */
  readonly sha256: Buffer;
  /** A key read from `env_var` that is checksummed: its prefix; else `null` (and for `hash_env`). */
  readonly checksummedPrefix: string | null;
  /** The client's own limits, from its entry. */
  readonly requestsPerMinute: number | null;
  readonly quota: ApiKeyEntryConfig['quota'];
}

/**
 * The name of the variable holding the spec's single key: `env_var`, or `<PREFIX>_API_KEY` when
 * `prefix` is set (prefix `prod` reads `PROD_API_KEY`). Not used when `keys` is set.
 */
export function expectedKeyVariable(config: AuthConfig): string {
  return apiKeyVariable(config);
}

/**
 * Reads every expected key from the environment, once. Without `keys`, the spec's single key;
 * with `keys`, one per entry.
 *
 * @throws ConfigError listing every unset or unusable variable by name (never its value), every
 *   `hash_env` that is not 64 hex digits, and every key held by two entries (naming both).
 */
export function readExpectedKeys(config: AuthConfig, env: HandlerDeps['env']): ExpectedKey[] {
  const { keys, prefix } = config.apiKeys;
  if (keys === null) {
    const variable = expectedKeyVariable(config);
    const path = prefix === null ? 'auth.api_keys.env_var' : 'auth.api_keys.prefix';
    const read = readPlainKey(variable, env[variable]);
    if (typeof read === 'string') throw new ConfigError({ path, message: read });
    return [
      {
        path,
        variable,
        source: 'env_var',
        name: variable,
        roles: [],
        tenantId: null,
        expires: null,
        created: null,
        sha256: read,
        checksummedPrefix: checksummedPrefixOf(env[variable]!),
        requestsPerMinute: null,
        quota: null,
      },
    ];
  }
  const issues: ConfigIssue[] = [];
  const expected: ExpectedKey[] = [];
  keys.forEach((entry, index) => {
    const read = readEntry(entry, `auth.api_keys.keys[${index}]`, env);
    if ('message' in read) issues.push(read);
    else expected.push(read);
  });
  issues.push(...sharedKeys(expected));
  if (issues.length > 0) throw new ConfigError(issues);
  return expected;
}

function readEntry(entry: ApiKeyEntryConfig, path: string, env: HandlerDeps['env']): ExpectedKey | ConfigIssue {
  const source = entry.hashEnv === null ? 'env_var' : 'hash_env';
  const variable = (entry.hashEnv ?? entry.envVar)!;
  const value = env[variable];
  const read = source === 'hash_env' ? readDigest(variable, value) : readPlainKey(variable, value);
  if (typeof read === 'string') return { path: `${path}.${source}`, message: read };
  const { name, roles, tenantId, expires, created, requestsPerMinute, quota } = entry;
  const checksummedPrefix = source === 'env_var' ? checksummedPrefixOf(value!) : null;
  return {
    path,
    variable,
    source,
    name,
    roles,
    tenantId,
    expires,
    created,
    sha256: read,
    checksummedPrefix,
    requestsPerMinute,
    quota,
  };
}

/** The prefix of a checksummed key (its checksum right), else null. */
function checksummedPrefixOf(key: string): string | null {
  const prefix = prefixOf(key);
  return prefix !== null && isChecksummedKey(key, new Set([prefix])) ? prefix : null;
}

/** The key itself; a message (naming the variable, never the value) when it can never match. */
function readPlainKey(variable: string, value: string | undefined): Buffer | string {
  if (value === undefined || value === '') return `environment variable ${variable} is unset or empty`;
  // HTTP strips white space around header values, so such a key could never arrive.
  if (value.trim() !== value) return `environment variable ${variable} starts or ends with white space`;
  // RFC 9110 §5.5: a field value holds no control character but HTAB, so such a key could never arrive.
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return `environment variable ${variable} holds a control character`;
  return sha256Of(Buffer.from(value, 'utf8'));
}

/** A `hash_env` value: exactly 64 hex digits, either case. */
function readDigest(variable: string, value: string | undefined): Buffer | string {
  if (value === undefined || value === '') return `environment variable ${variable} is unset or empty`;
  if (!/^[0-9a-fA-F]{64}$/.test(value))
    return `environment variable ${variable} must hold 64 hex digits (the SHA-256 of the key)`;
  return Buffer.from(value, 'hex');
}

/** One key in two entries: a start-up failure naming both entries (and both names). */
function sharedKeys(expected: readonly ExpectedKey[]): ConfigIssue[] {
  const first = new Map<string, ExpectedKey>();
  const issues: ConfigIssue[] = [];
  for (const key of expected) {
    const id = key.sha256.toString('base64');
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, key);
    else
      issues.push({
        path: key.path,
        message: `holds the same key as ${earlier.path} ("${earlier.name}" and "${key.name}"); every key must be distinct`,
      });
  }
  return issues;
}
