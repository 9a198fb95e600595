import { resolve } from 'node:path';
import {
  AuthError,
  ConfigError,
  apiKeyChallenge,
  createAuthContext,
  createNoAuthHandler,
  createPermissionResolver,
  fromAuthenticateNow,
  readBearerToken,
  soleHeaderValue,
  type AuthContext,
  type AuthFailure,
  type ClientLimits,
  type ConfigIssue,
  type AuthHandler,
  type AuthRequest,
  type CreateHandler,
  type PermissionResolver,
  type Recognition,
  type SecuritySchemePart,
} from '@authlayer/core';
import { describeKeys, startOfDay, summarizeKeys, warnAboutKeys } from './describe-keys.js';
import { readExpectedKeys, type ExpectedKey } from './expected-keys.js';
import { apiKeysOf, type ApiKeysConfig } from './config/api-keys-section.js';
import { isChecksummedKey } from './checksummed-key.js';
import { createKeyTable } from './key-table.js';
import { presentedKeyOf } from './read-presented-key.js';

/** What a matching key gives: its client's identity, from when it is refused, and if a newer key replaced it. */
interface Match {
  readonly context: AuthContext;
  readonly expiresAt: number | null;
  readonly superseded: boolean;
}

/** How often, at most, `api key superseded` is logged for one client. */
const SUPERSEDED_EVERY_MS = 60_000;

const REFUSALS = [
  'credentials_missing',
  'credentials_invalid',
  'credentials_expired',
] as const satisfies readonly AuthFailure[];
type Refusal = (typeof REFUSALS)[number];

/**
 * Creates the API key handler. Reads every expected key from the environment once, at start-up:
 * the spec's single key (`env_var` or `<PREFIX>_API_KEY`), or one per entry of `keys` (the key
 * itself through `env_var`, or its SHA-256 through `hash_env`). A presented key is found among
 * them in constant time (see `createKeyTable`). With `enabled: false` it returns the no-auth
 * handler and warns that requests are NOT authenticated.
 *
 * @throws ConfigError naming every variable that is unset, empty or unusable (never its value),
 *   every `hash_env` that is not 64 hex digits, and every key that two entries share.
 * @example
 * const handler = await createApiKeyHandler(parseAuthConfig({ auth: { mode: 'api_key' } }),
 *   { env: process.env, logger: console });
 */
export const createApiKeyHandler: CreateHandler = async (config, deps) => {
  const settings = apiKeysOf(config, deps);
  if (!settings.enabled) {
    deps.logger.warn('auth.api_keys.enabled is false: API key mode is off and requests are NOT authenticated');
    return createNoAuthHandler();
  }
  const now = deps.now ?? Date.now;
  const { header, allowBearer, rotationDays } = settings;
  const expected = readExpectedKeys(settings, deps.env);
  const permissionsOf = createPermissionResolver(config.roles);
  const identities = identitiesOf(expected, permissionsOf);
  const checksummed = settings.format === 'checksummed' ? checksummedPrefixes(settings, expected) : null;
  const newest = newestCreated(expected);
  const table = createKeyTable(
    expected.map((key) => ({ sha256: key.sha256, value: matchOf(key, identities, newest) })),
  );
  const lookup = (presented: string): Match | undefined => {
    const match = table(presented);
    deps.observe?.keyLookup?.(match === undefined ? 'miss' : 'hit');
    return match;
  };
  const limits = limitsOf(expected, identities);
  const supersededLogged = new Map<string, number>();
  const noteSuperseded = (name: string) => {
    const last = supersededLogged.get(name);
    if (last !== undefined && now() - last < SUPERSEDED_EVERY_MS) return;
    supersededLogged.set(name, now());
    deps.logger.warn(`api key superseded: client "${name}" used an older key while a newer one exists`);
  };
  warnAboutKeys(expected, rotationDays, now(), deps.logger);
  // What --check shows keeps names, variables, dates and roles: no key, no digest.
  const facts = expected.map(({ sha256: _digest, ...rest }) => rest);
  const challenge = Object.fromEntries(
    REFUSALS.map((reason) => [reason, apiKeyChallenge(header, allowBearer, reason)]),
  );
  const headerName = header.toLowerCase();
  const isOwnBearerKey = (request: AuthRequest): boolean => {
    const bearer = readBearerToken(request);
    return bearer.kind === 'token' && table(bearer.token) !== undefined;
  };
  const fail = (reason: Refusal): never => {
    throw new AuthError(reason, challenge[reason]!);
  };

  // Synchronous: the middleware calls next() in the same turn (see AuthHandler.authenticateNow).
  const handler: AuthHandler = {
    method: 'api_key',
    ...fromAuthenticateNow((request) => {
      const presented = presentedKeyOf(request, headerName, allowBearer);
      if (typeof presented !== 'string') {
        // Without allow_bearer, a configured key sent as Bearer is a credential of ours in the
        // wrong place: refused as invalid here, so it never reaches another mode (see recognize).
        if (presented.kind === 'absent' && !allowBearer && isOwnBearerKey(request)) return fail('credentials_invalid');
        return fail(presented.kind === 'absent' ? 'credentials_missing' : 'credentials_invalid');
      }
      // A typo or garbage is refused by its shape and checksum, without a lookup.
      if (checksummed !== null && !isChecksummedKey(presented, checksummed.prefixes))
        return fail('credentials_invalid');
      const match = lookup(presented);
      if (match === undefined) return fail('credentials_invalid');
      if (match.expiresAt !== null && now() >= match.expiresAt) return fail('credentials_expired');
      if (match.superseded) noteSuperseded(match.context.userId!);
      return match.context;
    }),
    describe: () => describeKeys(facts, { rotationDays, now: now(), permissionsOf }),
    // Its header is its own; a configured key sent as Bearer is surely its own too, with or
    // without allow_bearer (so a key never goes to another mode, such as an introspection
    // endpoint: without allow_bearer it is refused here). Another Bearer value it may take only
    // with allow_bearer.
    recognize: (request: AuthRequest): Recognition | undefined => {
      if (soleHeaderValue(request, headerName) !== '') return 'certain';
      if (isOwnBearerKey(request)) return 'certain';
      return allowBearer && readBearerToken(request).kind !== 'absent' ? 'possible' : undefined;
    },
    credentialHeaders: [headerName],
    keyFiles: keyFilesOf(settings),
    summary: () => summarizeKeys(expected, settings),
    securitySchemes: () => securitySchemesOf(header, allowBearer),
    limitsOf: (context) => limits.get(context),
    // Its userId is a configured client's name (refused: none), so a metric may label by it.
    clientOf: ({ method, userId }) => (method === handler.method ? (userId ?? '') : undefined),
    // Keys of one client share its context: the key the request presented says when it ends.
    credentialExpiry: (_context, request) => {
      const presented = presentedKeyOf(request, headerName, allowBearer);
      const end = typeof presented === 'string' ? table(presented)?.expiresAt : undefined;
      return end === undefined || end === null
        ? null
        : { expiresAt: Math.floor(end / 1000), refusedFrom: end, reason: 'credentials_expired' };
    },
  };
  return Object.freeze(handler);
};

/** One frozen AuthContext per client (entries of one name share it). */
function identitiesOf(expected: readonly ExpectedKey[], permissionsOf: PermissionResolver): Map<string, AuthContext> {
  const identities = new Map<string, AuthContext>();
  for (const { name, roles, tenantId } of expected) {
    if (identities.has(name)) continue;
    identities.set(
      name,
      createAuthContext({ method: 'api_key', userId: name, roles, permissions: permissionsOf(roles, []), tenantId }),
    );
  }
  return identities;
}

/** The latest `created` of each client's keys (one pass: 10 000 keys must not cost 10 000² steps). */
function newestCreated(expected: readonly ExpectedKey[]): Map<string, string> {
  const newest = new Map<string, string>();
  for (const { name, created } of expected) {
    if (created !== null && created > (newest.get(name) ?? '')) newest.set(name, created);
  }
  return newest;
}

function matchOf(key: ExpectedKey, identities: Map<string, AuthContext>, newest: Map<string, string>): Match {
  // Superseded: another key of the same client was made later (`created`).
  const latest = newest.get(key.name);
  const superseded = key.created !== null && latest !== undefined && latest > key.created;
  return Object.freeze({ context: identities.get(key.name)!, expiresAt: startOfDay(key.expires), superseded });
}

/** Each client's own limits, by its context; clients without any are left out. */
function limitsOf(
  expected: readonly ExpectedKey[],
  identities: Map<string, AuthContext>,
): Map<AuthContext, ClientLimits> {
  const limits = new Map<AuthContext, ClientLimits>();
  for (const { name, requestsPerMinute, quota } of expected) {
    if (requestsPerMinute === null && quota === null) continue;
    limits.set(identities.get(name)!, Object.freeze({ requestsPerMinute, quota }));
  }
  return limits;
}

/**
 * `format: checksummed`: every key read from `env_var` or `key_file` must be checksummed, and a
 * presented key's prefix must be one of `key_prefixes`. Without `key_prefixes`: the prefixes of
 * those keys, or, when some entry is hashed (a digest does not tell its key's prefix), any prefix
 * of the right shape (`prefixes: null`): the shape and checksum still refuse garbage before the
 * lookup, which decides the rest.
 *
 * @throws ConfigError naming each key that is not checksummed, or of a prefix not listed (never the key)
 */
function checksummedPrefixes(
  settings: ApiKeysConfig,
  expected: readonly ExpectedKey[],
): { readonly prefixes: ReadonlySet<string> | null } {
  const listed = settings.keyPrefixes;
  const issues: ConfigIssue[] = [];
  for (const key of expected) {
    if (!isPlain(key)) continue;
    const what = key.source === 'env_var' ? `environment variable ${key.variable}` : `file ${key.variable}`;
    if (key.checksummedPrefix === null) {
      issues.push({
        path: `${key.path}${key.path.endsWith(']') ? `.${key.source}` : ''}`,
        message: `${what} holds a key that is not checksummed (format: checksummed); make one with --new-key --prefix`,
      });
    } else if (listed !== null && !listed.includes(key.checksummedPrefix)) {
      issues.push({
        path: key.path,
        message: `the key of ${key.variable} has a prefix that key_prefixes does not list`,
      });
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  if (listed !== null) return { prefixes: new Set(listed) };
  if (expected.some((key) => !isPlain(key))) return { prefixes: null };
  return { prefixes: new Set(expected.flatMap((key) => key.checksummedPrefix ?? [])) };
}

/** A key read as itself (not as a digest), so its shape can be checked. */
function isPlain(key: ExpectedKey): boolean {
  return key.source === 'env_var' || key.source === 'key_file';
}

function securitySchemesOf(header: string, allowBearer: boolean): SecuritySchemePart[] {
  const inHeader: SecuritySchemePart = {
    name: 'APIKeyHeader',
    type: 'apiKey',
    header,
    description: `API key in the ${header} header`,
  };
  if (!allowBearer) return [inHeader];
  return [inHeader, { name: 'BearerAuth', type: 'http', scheme: 'bearer', description: 'API key as a Bearer token' }];
}

/** The files the section names for key material, absolute, each once (what `reload.watch` watches). */
function keyFilesOf({ keyFile, keysFile, keys }: ApiKeysConfig): string[] {
  const files = [keyFile, keysFile, ...(keys ?? []).flatMap((entry) => [entry.keyFile, entry.hashFile])];
  return [...new Set(files.filter((file): file is string => file !== null).map((file) => resolve(file)))];
}
