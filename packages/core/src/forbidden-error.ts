/**
 * Why an authenticated caller is refused: the kind of name it lacks, a route parameter that names
 * another tenant (`tenant_mismatch`), a verified claim without an accepted value
 * (`claim_mismatch`), an MCP message's parameter without an accepted value (`param_mismatch`),
 * or a route closed to everyone (`route_denied`). Wire strings.
 */
export type ForbiddenReason =
  | 'permission_missing'
  | 'scope_missing'
  | 'role_missing'
  | 'tenant_mismatch'
  | 'claim_mismatch'
  | 'param_mismatch'
  | 'route_denied';

const WHAT: Readonly<Record<'permission_missing' | 'scope_missing' | 'role_missing', string>> = Object.freeze({
  permission_missing: 'permission',
  scope_missing: 'scope',
  role_missing: 'role',
});

// Fixed sentences: neither the caller's tenant nor the request's parameter is ever repeated.
const FIXED: Readonly<Record<'tenant_mismatch' | 'route_denied', string>> = Object.freeze({
  tenant_mismatch: "the resource belongs to another tenant than the caller's",
  route_denied: 'this route is closed to every caller',
});

// RFC 6749 §3.3 scope-token: printable ASCII without space, `"` or `\`, so a name can stand in an
// RFC 6750 quoted string and a space-separated `scope` attribute.
const NAME = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * True for a name a guard or an `access` rule may require: 1 to 128 characters of printable ASCII
 * without space, `"` or `\` (an RFC 6749 scope-token).
 */
export function isRequirableName(name: unknown): name is string {
  return typeof name === 'string' && name.length <= 128 && NAME.test(name);
}

/**
 * The sentence of a 403: what is missing, by the REQUIRED names only (never the caller's own),
 * so it is safe in a body, a header and a log line. For `claim_mismatch`, `missing` holds the
 * claim's path, named without any value (neither the caller's nor the accepted ones).
 *
 * @example
 * describeForbidden('permission_missing', ['invoke']); // 'the permission invoke is required'
 * describeForbidden('claim_mismatch', ['org.tier']);   // 'the claim org.tier does not have an accepted value'
 */
export function describeForbidden(reason: ForbiddenReason, missing: readonly string[]): string {
  if (reason === 'tenant_mismatch' || reason === 'route_denied') return FIXED[reason];
  if (reason === 'claim_mismatch') return `the claim ${missing[0] ?? ''} does not have an accepted value`;
  if (reason === 'param_mismatch') return `the parameter ${missing[0] ?? ''} does not have an accepted value`;
  const what = WHAT[reason];
  return missing.length === 1
    ? `the ${what} ${missing[0]} is required`
    : `the ${what}s ${missing.join(', ')} are required`;
}

/**
 * An authenticated caller refused: HTTP 403 with the body `{"error":"forbidden","message":...}`,
 * and `WWW-Authenticate` = {@link ForbiddenError.challenge} when that is not null (RFC 6750
 * `insufficient_scope`, for requests that carried a Bearer credential). `@authlayer/express`
 * renders it in the same place as an `AuthError`.
 *
 * @example
 * throw new ForbiddenError('permission_missing', null, ['invoke']);
 */
export class ForbiddenError extends Error {
  override readonly name = 'ForbiddenError';
  /** Becomes the body's `error`. */
  readonly code = 'forbidden';
  readonly status = 403;
  /** The required names the caller lacks, in the order they were required. */
  readonly missing: readonly string[];

  /**
   * @param reason - which kind of name is missing
   * @param challenge - the full `WWW-Authenticate` value, or null for none
   * @param missing - the required names the caller lacks (at least one; none for `tenant_mismatch`
   *   and `route_denied`; the claim's path for `claim_mismatch`)
   */
  constructor(
    readonly reason: ForbiddenReason,
    readonly challenge: string | null,
    missing: readonly string[],
  ) {
    super(describeForbidden(reason, missing));
    this.missing = Object.freeze([...missing]);
  }
}

/**
 * True for a {@link ForbiddenError}, also one made by another copy of this package
 * (two versions of core may be installed side by side, so `instanceof` is not enough).
 */
export function isForbiddenError(error: unknown): error is ForbiddenError {
  const candidate = error as Partial<ForbiddenError>;
  return (
    error instanceof Error &&
    error.name === 'ForbiddenError' &&
    typeof candidate.reason === 'string' &&
    (typeof candidate.challenge === 'string' || candidate.challenge === null) &&
    Array.isArray(candidate.missing) &&
    candidate.status === 403
  );
}
