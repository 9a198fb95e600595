import { createAuthContext, type AuthContext, type AuthMethod } from './auth-context.js';
import type { ClaimsConfig, RoleConfig } from './config/auth-config.js';
import { createPermissionResolver } from './role-permissions.js';

/** Turns a verified token payload (or an introspection answer) into an {@link AuthContext}. */
export type ClaimsMapper = (payload: Readonly<Record<string, unknown>>) => AuthContext;

/** Whose tokens a {@link ClaimsMapper} maps; every field has a default. */
export interface ClaimsMapperOptions {
  /** Set as the context's `issuer` (one of several issuers vouched). Default `null`: no `issuer`. */
  readonly issuer?: string | null;
  /** Whether the top-level `roles` section gives this issuer's roles permissions. Default `true`. */
  readonly trustRoles?: boolean;
  /** The issuer's `leeway_seconds`, carried by each context (see `AuthContextInit.leewaySeconds`). Default 0. */
  readonly leewaySeconds?: number;
  /**
   * Read `scp` (Okta, Entra) when a token has no `scope` and `claims.scopes` is the default. On
   * where a resource server speaks for MCP (`resource` or `mcp` configured); default `false`, so a
   * plain service maps only the claims it names.
   */
  readonly readScp?: boolean;
}

/**
 * Builds the claims mapping that every token mode shares (`auth.jwt.claims`,
 * `auth.oauth2.claims`; defaults: `sub`, `email`, `name`, `roles`,
 * `permissions`, `scope`, no tenant). Each claim is read by name or dot path (`a.b` reads `b`
 * inside the object `a`; a top-level claim named `a.b` wins), from own properties of plain objects only.
 *
 * - `userId`, `tenantId`: a non-empty string, or a safe integer written in decimal; else `null`.
 * - `email`, `name`: a non-empty string; else `null`.
 * - `roles`, `permissions`: a list (entries that are not strings are dropped) or one string (one entry).
 * - `scopes`: a space-separated string is split (RFC 6749 §3.3); a list is taken as it is.
 * - `permissions` is the token's own permissions united with those the top-level `roles`
 *   section gives the token's roles.
 *
 * - `method` is the mode that produced the payload, as the context's `method`.
 * - `options.leewaySeconds` travels with the context, for the `auth_time` a rule's `max_age` reads.
 * - `options.issuer` becomes the context's `issuer`; with `options.trustRoles: false` the roles are
 *   listed but the top-level `roles` section gives them no permission (the issuer's own
 *   `permissions` claim still counts).
 *
 * @example
 * const map = createClaimsMapper('jwt', { ...claims, roles: 'realm_access.roles' }, [{ name: 'admin', permissions: ['invoke'] }]);
 * map({ sub: 'u-1', realm_access: { roles: ['admin'] } }).permissions; // ['invoke']
 */
export function createClaimsMapper(
  method: AuthMethod,
  claims: ClaimsConfig,
  roleConfig: readonly RoleConfig[],
  { issuer = null, trustRoles = true, leewaySeconds = 0, readScp = false }: ClaimsMapperOptions = {},
): ClaimsMapper {
  const resolvePermissions = createPermissionResolver(trustRoles ? roleConfig : []);
  // Each path is split once here, not on every request.
  const [userId, email, name, roles, permissions, scopes] = [
    claims.userId,
    claims.email,
    claims.name,
    claims.roles,
    claims.permissions,
    claims.scopes,
  ].map(createClaimReader) as [ClaimReader, ClaimReader, ClaimReader, ClaimReader, ClaimReader, ClaimReader];
  const scp = createClaimReader('scp');
  // Okta and Entra issue `scp` (a list or a string) and no `scope`: read when the default path,
  // `scope`, is absent. A path of the config's own is the only one read.
  const readScopes =
    readScp && claims.scopes === 'scope'
      ? (payload: Readonly<Record<string, unknown>>) => scopes(payload) ?? scp(payload)
      : scopes;
  const tenantId = claims.tenantId === null ? () => undefined : createClaimReader(claims.tenantId);
  return (payload) => {
    const tokenRoles = toStringList(roles(payload));
    return createAuthContext({
      method,
      userId: toIdentifier(userId(payload)),
      email: toText(email(payload)),
      name: toText(name(payload)),
      roles: tokenRoles,
      permissions: resolvePermissions(tokenRoles, toStringList(permissions(payload))),
      scopes: toScopes(readScopes(payload)),
      tenantId: toIdentifier(tenantId(payload)),
      issuer,
      claims: payload,
      leewaySeconds,
    });
  };
}

/**
 * Reads a claim by name or dot path. A top-level claim whose name is the whole path wins, so
 * namespaced claims such as `https://example.com/roles` work; otherwise `a.b` reads `b` inside
 * the object `a`. Only own properties of plain objects are read: never a prototype's
 * (`__proto__`, `constructor`), never an array's index or `length`.
 */
export function readClaim(payload: Readonly<Record<string, unknown>>, path: string): unknown {
  return createClaimReader(path)(payload);
}

type ClaimReader = (payload: Readonly<Record<string, unknown>>) => unknown;

/** {@link readClaim} for one path, split once. */
function createClaimReader(path: string): ClaimReader {
  const parts = path.split('.');
  return (payload) => {
    if (Object.hasOwn(payload, path)) return payload[path];
    let value: unknown = payload;
    for (const part of parts) {
      if (!isPlainObject(value) || !Object.hasOwn(value, part)) return undefined;
      value = value[part];
    }
    return value;
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function toText(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Identifiers may be numbers in some providers' tokens (`"sub": 12345`); they become `"12345"`. */
function toIdentifier(value: unknown): string | null {
  return Number.isSafeInteger(value) ? String(value) : toText(value);
}

function toStringList(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (!Array.isArray(value)) return [];
  return value.filter((entry): entry is string => typeof entry === 'string' && entry !== '');
}

function toScopes(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[ \t]+/).filter((scope) => scope !== '');
  return toStringList(value);
}
