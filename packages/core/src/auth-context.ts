import type { AuthMode } from './config/defaults.js';

/**
 * How an {@link AuthContext} was produced: the mode that authenticated it (`api_key`, `jwt`,
 * `oauth2`, typed; or the name of a mode package outside this repository), or `none` when the
 * request was not authenticated.
 * @useDeclaredType
 */
export type AuthMethod = AuthMode | 'none';

/**
 * The authenticated identity of a request, as `req.auth` holds it and as `/invoke` returns it.
 * A frozen plain object whose JSON is exactly the contract's shape.
 */
export interface AuthContext {
  readonly method: AuthMethod;
  readonly userId: string | null;
  readonly email: string | null;
  readonly name: string | null;
  readonly roles: readonly string[];
  /** The token's own permissions united with those the top-level `roles` section gives its roles. */
  readonly permissions: readonly string[];
  readonly scopes: readonly string[];
  readonly tenantId: string | null;
  /**
   * Which issuer vouched for this identity: present only when several issuers are configured
   * (`auth.jwt.providers`), where `userId` alone does not say whose user it is; absent otherwise,
   * so a single issuer's JSON stays the contract's shape. Compare it with `userId` to tell users apart.
   */
  readonly issuer?: string;
}

/** The fields a handler may set; everything left out is `null` or an empty list (`issuer`: absent). */
export type AuthContextInit = { readonly method: AuthMethod } & Partial<Omit<AuthContext, 'method' | 'issuer'>> & {
    readonly issuer?: string | null;
    /**
     * The verified token's claims, for {@link verifiedClaims}; never part of the JSON. Copied and
     * frozen, unless already frozen: a frozen object is kept as it is (nobody can change it).
     */
    readonly claims?: Readonly<Record<string, unknown>>;
    /**
     * How far, in seconds, the clock of the issuer that vouched may run ahead of this one (its
     * `leeway_seconds`): a rule's `max_age` refuses an `auth_time` later than now plus this.
     * Default 0; never part of the JSON.
     */
    readonly leewaySeconds?: number;
  };

// Registered symbols, so a context made by another copy of core still answers verifiedClaims.
const CLAIMS = Symbol.for('authlayer.claims');
const LEEWAY = Symbol.for('authlayer.leeway');

/**
 * The verified claims of the token behind a context (JWT and OAuth2 modes: the token's payload,
 * or the introspection answer), so a handler reads a claim the context does not map without
 * parsing the token again: `verifiedClaims(req.auth)?.org_name`. `null` for API keys, anonymous
 * callers and no context.
 */
export function verifiedClaims(context: AuthContext | undefined | null): Readonly<Record<string, unknown>> | null {
  const claims = (context as { [CLAIMS]?: Readonly<Record<string, unknown>> } | null | undefined)?.[CLAIMS];
  return claims ?? null;
}

/**
 * The seconds the issuer behind a context tolerates between its clock and this one (see
 * `AuthContextInit.leewaySeconds`); 0 for a context made without it (API keys, anonymous callers).
 */
export function clockLeewayOf(context: AuthContext): number {
  return (context as { [LEEWAY]?: number })[LEEWAY] ?? 0;
}

/**
 * Builds a frozen {@link AuthContext}, filling every missing field with `null` or `[]` and
 * de-duplicating the lists while keeping their order.
 *
 * @example
 * createAuthContext({ method: 'jwt', userId: 'u-1', roles: ['admin'] });
 */
export function createAuthContext(init: AuthContextInit): AuthContext {
  const context: { -readonly [K in keyof AuthContext]: AuthContext[K] } = {
    method: init.method,
    userId: init.userId ?? null,
    email: init.email ?? null,
    name: init.name ?? null,
    roles: freezeUnique(init.roles),
    permissions: freezeUnique(init.permissions),
    scopes: freezeUnique(init.scopes),
    tenantId: init.tenantId ?? null,
  };
  // Added in place, not spread into a copy: V8 makes the copy several times slower, and every
  // fresh token makes a context.
  if (typeof init.issuer === 'string') context.issuer = init.issuer;
  // Not enumerable: the JSON, and what a test's deep equality sees, stay the contract's shape.
  if (init.claims !== undefined) Object.defineProperty(context, CLAIMS, { value: frozenClaims(init.claims) });
  if (init.leewaySeconds !== undefined && init.leewaySeconds > 0) {
    Object.defineProperty(context, LEEWAY, { value: init.leewaySeconds });
  }
  return Object.freeze(context);
}

/**
 * The claims as the context keeps them: a frozen object as it is, anything else a frozen copy.
 * V8 (Node.js 20) gives each frozen spread copy a hidden class of its own, kept as long as the
 * copy: a JWT mode that freezes the payload it parsed saves that and the copy for every token.
 */
function frozenClaims(claims: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  return Object.isFrozen(claims) ? claims : Object.freeze({ ...claims });
}

// Most identities have a list or two empty: they share one frozen empty list.
const EMPTY: readonly string[] = Object.freeze([]);

/**
 * The list without repeats, first occurrence kept, frozen. Lists of zero or one entries (most of
 * them) skip the `Set`: a fresh context costs a third of the instructions it did with a `Set` per
 * list (callgrind, 2026-11-22).
 */
function freezeUnique(list: readonly string[] | undefined): readonly string[] {
  if (list === undefined || list.length === 0) return EMPTY;
  if (list.length === 1) return Object.freeze([list[0] as string]);
  return Object.freeze([...new Set(list)]);
}
