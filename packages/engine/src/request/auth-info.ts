import { soleHeaderValue, verifiedClaims, type AuthContext, type AuthHandler, type AuthRequest } from '@authlayer/core';

/**
 * What the MCP SDK reads of `req.auth` as its `AuthInfo`, besides `scopes` (the context's own):
 * all four are not enumerable, so `JSON.stringify(req.auth)` (and `/invoke`'s answer) stays the
 * contract's `AuthContext`, and the token never reaches a log line that prints the context.
 */
export interface AuthInfoFields {
  /** The credential as the request presented it. */
  readonly token?: string;
  /** JWT `client_id`, else `azp`, else `sub`; introspection's `client_id`; an API key's client name. */
  readonly clientId: string;
  /** When the credential ends, in seconds since the epoch (the handler's `credentialExpiry`). */
  readonly expiresAt?: number;
  /** `resource.identifier`, as a URL. */
  readonly resource?: URL;
}

/**
 * The per-request context of a request the engine lets through, when the config has `resource` or
 * `mcp`: a copy of the shared, frozen context (every property, the verified claims included) with
 * {@link AuthInfoFields} added. Contexts are cached per token and shared per API key client, so
 * the request's own credential cannot live on them.
 */
export function createAuthInfo(
  handler: Pick<AuthHandler, 'credentialExpiry' | 'credentialHeaders'>,
  identifier: string | null,
): (context: AuthContext, request: AuthRequest) => AuthContext {
  const resource = identifier === null ? undefined : new URL(identifier);
  const headers = (handler.credentialHeaders ?? []).filter((name) => name !== 'authorization');
  return (context, request) => {
    const copy = Object.create(Object.getPrototypeOf(context) as object, Object.getOwnPropertyDescriptors(context));
    const token = presentedCredential(request, headers);
    const expiresAt = handler.credentialExpiry?.(context, request)?.expiresAt;
    Object.defineProperties(copy, {
      ...(token === undefined ? {} : { token: { value: token } }),
      clientId: { value: clientIdOf(context) },
      ...(expiresAt === undefined ? {} : { expiresAt: { value: expiresAt } }),
      // A fresh URL per request: a URL is mutable, and one shared by every request could be changed.
      ...(resource === undefined ? {} : { resource: { value: new URL(resource) } }),
    });
    return Object.freeze(copy) as AuthContext;
  };
}

/** JWT `client_id`, else `azp`, else `sub` (introspection answers the same names); else the userId. */
function clientIdOf(context: AuthContext): string {
  const claims = verifiedClaims(context);
  for (const name of ['client_id', 'azp', 'sub']) {
    const value = claims?.[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return context.userId ?? '';
}

/** The token of `Authorization: <scheme> <token>`, else the value of the mode's own header (an API key). */
function presentedCredential(request: AuthRequest, headers: readonly string[]): string | undefined {
  const authorization = soleHeaderValue(request, 'authorization');
  if (authorization !== null && authorization !== '') {
    const space = authorization.indexOf(' ');
    if (space !== -1) return authorization.slice(space + 1).trim();
  }
  for (const name of headers) {
    const value = soleHeaderValue(request, name);
    if (value !== null && value !== '') return value;
  }
  return undefined;
}
