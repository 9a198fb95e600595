import { soleHeaderValue, verifiedClaims, type AuthContext, type AuthHandler, type AuthRequest } from '@authlayer/core';

/**
 * What the MCP SDK reads of `req.auth` as its `AuthInfo`, besides `scopes` (the context's own):
 * all four are getters of the prototype, so `JSON.stringify(req.auth)` (and `/invoke`'s answer)
 * stays the contract's `AuthContext`, and the token never reaches a log line that prints the context.
 */
export interface AuthInfoFields {
  /** The credential as the request presented it; `''` for an anonymous caller (`method: "none"`). */
  readonly token: string;
  /** JWT `client_id`, else `azp`, else `sub`; introspection's `client_id`; an API key's client name; `''` anonymous. */
  readonly clientId: string;
  /** When the credential ends, in seconds since the epoch (the handler's `credentialExpiry`). */
  readonly expiresAt?: number;
  /** `resource.identifier`, as a URL. */
  readonly resource?: URL;
}

/**
 * What `req.auth` (Express) and `request.auth` (Fastify) hold once authlayer let a request through:
 * the {@link AuthContext} and the {@link AuthInfoFields}, so the request can be handed to the MCP
 * SDK's `transport.handleRequest(req, res, req.body)` (whose `AuthInfo` wants `token`, `clientId`
 * and `scopes: string[]`) without a cast. `scopes` is typed `string[]` for that `AuthInfo` only:
 * the list is frozen, as every list of the context, and changing it throws.
 */
export type RequestAuth = AuthContext & AuthInfoFields & { readonly scopes: string[] };

// A registered symbol, as core's: `verifiedClaims(req.auth)` keeps answering for the copy.
const CLAIMS = Symbol.for('authlayer.claims');

type Handler = Pick<AuthHandler, 'credentialExpiry' | 'credentialHeaders'>;

/** What every request's copy of one generation shares. */
interface Shared {
  readonly handler: Handler;
  readonly identifier: string | null;
  readonly headers: readonly string[];
}

/**
 * The request's own copy of a shared context: the context's fields as own properties (the same
 * JSON), and the {@link AuthInfoFields} as getters worked out when read. A class, not a copy of
 * property descriptors: one fixed shape, a few assignments per request.
 */
class RequestAuthCopy {
  readonly #context: AuthContext;
  readonly #request: AuthRequest;
  readonly #shared: Shared;
  declare readonly method: AuthContext['method'];
  declare readonly userId: string | null;
  declare readonly email: string | null;
  declare readonly name: string | null;
  declare readonly roles: readonly string[];
  declare readonly permissions: readonly string[];
  declare readonly scopes: readonly string[];
  declare readonly tenantId: string | null;
  declare readonly issuer?: string;

  constructor(context: AuthContext, request: AuthRequest, shared: Shared) {
    this.#context = context;
    this.#request = request;
    this.#shared = shared;
    const self = this as unknown as { -readonly [K in keyof AuthContext]: AuthContext[K] };
    self.method = context.method;
    self.userId = context.userId;
    self.email = context.email;
    self.name = context.name;
    self.roles = context.roles;
    self.permissions = context.permissions;
    self.scopes = context.scopes;
    self.tenantId = context.tenantId;
    if (context.issuer !== undefined) self.issuer = context.issuer;
    Object.freeze(this);
  }

  get token(): string {
    // An anonymous caller's header (an unchecked one, or any header in no-auth mode) is no credential.
    if (this.#context.method === 'none') return '';
    return presentedCredential(this.#request, this.#shared.headers) ?? '';
  }

  get clientId(): string {
    const claims = verifiedClaims(this.#context);
    for (const name of ['client_id', 'azp', 'sub']) {
      const value = claims?.[name];
      if (typeof value === 'string' && value !== '') return value;
    }
    return this.#context.userId ?? '';
  }

  get expiresAt(): number | undefined {
    return this.#shared.handler.credentialExpiry?.(this.#context, this.#request)?.expiresAt;
  }

  /** A fresh URL each time: a URL is mutable, and one shared by every request could be changed. */
  get resource(): URL | undefined {
    return this.#shared.identifier === null ? undefined : new URL(this.#shared.identifier);
  }

  get [CLAIMS](): Readonly<Record<string, unknown>> | undefined {
    return (this.#context as { [CLAIMS]?: Readonly<Record<string, unknown>> })[CLAIMS];
  }
}

/**
 * The per-request context of every request the engine lets through: contexts are frozen and shared
 * (cached per token, one per API key client), so the request's own credential cannot live on them.
 * Made in every config, not only with `resource` or `mcp`, because `req.auth` is typed
 * {@link RequestAuth} everywhere (a type cannot see the YAML). Costs one small object per request.
 */
export function createAuthInfo(
  handler: Handler,
  identifier: string | null,
): (context: AuthContext, request: AuthRequest) => RequestAuth {
  const shared: Shared = {
    handler,
    identifier,
    headers: (handler.credentialHeaders ?? []).filter((name) => name !== 'authorization'),
  };
  return (context, request) => new RequestAuthCopy(context, request, shared) as unknown as RequestAuth;
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
