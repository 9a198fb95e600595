import {
  ConfigError,
  isConfigError,
  readSecretFile,
  type AuthConfig,
  type ConfigIssue,
  type HandlerDeps,
} from '@authlayer/core';
import { resolve } from 'node:path';
import { apiKeysOf, apiKeyVariable, type ApiKeyEntryConfig, type ApiKeysConfig } from './config/api-keys-section.js';
import { readApiKeysFile } from './config/keys-file.js';
import { isChecksummedKey, prefixOf } from './checksummed-key.js';
import { sha256Of } from './key-table.js';

/** An expected key as read at start-up: where it is configured, who it is, its SHA-256. */
export interface ExpectedKey {
  /** The config path of its entry: `auth.api_keys.keys[0]`, or `auth.api_keys.env_var` / `.prefix`. */
  readonly path: string;
  /** The variable or file it was read from (an absolute path for a file), and how it holds the key. */
  readonly variable: string;
  /** `env_var`/`key_file`: the key itself; `hash_env`/`hash_file`: its hex SHA-256; `keys_file`: an entry of it. */
  readonly source: 'env_var' | 'hash_env' | 'key_file' | 'hash_file' | 'keys_file';
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
  return apiKeyVariable(apiKeysOf(config, {}));
}

/**
 * Reads every expected key from the environment and the files the config names, once (at
 * start-up, and again for each reload). Without `keys` or `keys_file`, the spec's single key
 * (`env_var`, `<PREFIX>_API_KEY` or `key_file`); else one per entry of `keys` and of `keys_file`.
 *
 * @throws ConfigError listing every unset or unusable variable or file by name (never its
 *   value), every digest that is not 64 hex digits, and every key held by two entries (naming both).
 */
export function readExpectedKeys(settings: ApiKeysConfig, env: HandlerDeps['env']): ExpectedKey[] {
  const { keys, prefix, keyFile, keysFile } = settings;
  if (keys === null) {
    const variable = keyFile ?? apiKeyVariable(settings);
    const path =
      keyFile !== null ? 'auth.api_keys.key_file' : `auth.api_keys.${prefix === null ? 'env_var' : 'prefix'}`;
    const source = keyFile === null ? 'env_var' : 'key_file';
    const value = readMaterial(source, variable, path, env);
    const read = typeof value === 'string' ? readPlainKey(describeSource(source, variable), value) : value.message;
    if (typeof read === 'string') throw new ConfigError({ path, message: read });
    return [
      {
        path,
        variable: source === 'key_file' ? resolve(variable) : variable,
        source,
        name: variable,
        roles: [],
        tenantId: null,
        expires: null,
        created: null,
        sha256: read,
        checksummedPrefix: checksummedPrefixOf(value as string),
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
  if (keysFile !== null) {
    try {
      expected.push(...fileEntries(keysFile, expected));
    } catch (error) {
      if (!isConfigError(error)) throw error;
      issues.push(...error.issues);
    }
  }
  issues.push(...sharedKeys(expected));
  if (issues.length > 0) throw new ConfigError(issues);
  return expected;
}

const SOURCE_FIELDS = ['envVar', 'hashEnv', 'keyFile', 'hashFile'] as const;
const SOURCE_NAMES = { envVar: 'env_var', hashEnv: 'hash_env', keyFile: 'key_file', hashFile: 'hash_file' } as const;

function readEntry(entry: ApiKeyEntryConfig, path: string, env: HandlerDeps['env']): ExpectedKey | ConfigIssue {
  // The config's rules leave exactly one source set.
  const field = SOURCE_FIELDS.find((name) => entry[name] !== null)!;
  const source = SOURCE_NAMES[field];
  const variable = entry[field]!;
  const value = readMaterial(source, variable, `${path}.${source}`, env);
  if (typeof value !== 'string') return value;
  const what = describeSource(source, variable);
  const hashed = source === 'hash_env' || source === 'hash_file';
  const read = hashed ? readDigest(what, value) : readPlainKey(what, value);
  if (typeof read === 'string') return { path: `${path}.${source}`, message: read };
  const { name, roles, tenantId, expires, created, requestsPerMinute, quota } = entry;
  const checksummedPrefix = hashed ? null : checksummedPrefixOf(value);
  return {
    path,
    variable: source.endsWith('_file') ? resolve(variable) : variable,
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

/** The value of a variable, or a file's content; an issue naming the field when there is none. */
function readMaterial(
  source: ExpectedKey['source'],
  name: string,
  path: string,
  env: HandlerDeps['env'],
): string | ConfigIssue {
  if (!source.endsWith('_file')) return env[name] ?? '';
  try {
    return readSecretFile(name, path);
  } catch (error) {
    return (error as ConfigError).issues[0]!;
  }
}

/** How messages name where a key comes from: `environment variable X`, `file /abs/path`. */
function describeSource(source: ExpectedKey['source'], name: string): string {
  return source.endsWith('_file') ? `file ${resolve(name)}` : `environment variable ${name}`;
}

/**
 * The entries of `keys_file`. A client's roles and tenant come from the first entry of its name
 * that says them, in `keys` or in the file.
 */
function fileEntries(file: string, listed: readonly ExpectedKey[]): ExpectedKey[] {
  const entries = readApiKeysFile(file);
  const variable = resolve(file);
  const roles = new Map<string, readonly string[]>();
  const tenants = new Map<string, string | null>();
  for (const key of listed) {
    if (!roles.has(key.name)) roles.set(key.name, key.roles);
    if (!tenants.has(key.name)) tenants.set(key.name, key.tenantId);
  }
  for (const entry of entries) {
    if (entry.roles !== undefined && !roles.has(entry.name)) roles.set(entry.name, [...new Set(entry.roles)]);
    if (entry.tenantId !== undefined && !tenants.has(entry.name)) tenants.set(entry.name, entry.tenantId);
  }
  return entries.map((entry, index) => ({
    path: `auth.api_keys.keys_file[${index}]`,
    variable,
    source: 'keys_file',
    name: entry.name,
    roles: roles.get(entry.name) ?? [],
    tenantId: tenants.get(entry.name) ?? null,
    expires: entry.expires,
    created: entry.created,
    sha256: entry.sha256,
    checksummedPrefix: null,
    requestsPerMinute: null,
    quota: null,
  }));
}

/** The prefix of a checksummed key (its checksum right), else null. */
function checksummedPrefixOf(key: string): string | null {
  const prefix = prefixOf(key);
  return prefix !== null && isChecksummedKey(key, new Set([prefix])) ? prefix : null;
}

/** The key itself; a message (naming the variable or file, never the value) when it can never match. */
function readPlainKey(what: string, value: string): Buffer | string {
  if (value === '') return `${what} is unset or empty`;
  // HTTP strips white space around header values, so such a key could never arrive.
  if (value.trim() !== value) return `${what} starts or ends with white space`;
  // RFC 9110 §5.5: a field value holds no control character but HTAB, so such a key could never arrive.
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return `${what} holds a control character`;
  return sha256Of(Buffer.from(value, 'utf8'));
}

/** A `hash_env` or `hash_file` value: exactly 64 hex digits, either case. */
function readDigest(what: string, value: string): Buffer | string {
  if (value === '') return `${what} is unset or empty`;
  if (!/^[0-9a-fA-F]{64}$/.test(value)) return `${what} must hold 64 hex digits (the SHA-256 of the key)`;
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
