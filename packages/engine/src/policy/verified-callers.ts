import {
  AuthError,
  apiKeyChallenge,
  bearerError,
  createAuthContext,
  createClaimsMapper,
  createPermissionResolver,
  fromAuthenticateNow,
  readBearerToken,
  type AuthConfig,
  type AuthContext,
  type AuthHandler,
  type AuthMode,
  type AuthRequest,
  type ClaimsConfig,
  type HandlerDeps,
} from '@authlayer/core';
import { modePackageName, type ImportModule } from '../load-mode.js';

/** What a token mode's caller is made from: its section's (or one provider's) claims mapping. */
interface TokenSection {
  readonly issuer: string | null;
  readonly claims: ClaimsConfig;
  readonly trustRoles: boolean;
}

/** What the stand-in reads of `auth.api_keys` as @authlayer/api-key checked it (`deps.section`). */
interface ApiKeySection {
  readonly header: string;
  readonly allowBearer: boolean;
  readonly envVar: string;
  readonly prefix: string | null;
  readonly keys: readonly { name: string; roles: readonly string[]; tenantId: string | null }[] | null;
}

// A caller "taken as verified": the context its mode would have produced, made by the mode's own
// mapping (the API key's configured client; the token modes' claims mapping), without its secret.
// Each caller is a ticket the request carries where its mode's credential goes, and a stand-in
// handler per mode answers the ticket's context: the engine's flows, combinations of modes and
// rules run unchanged around it.

/** Who a policy case calls as: a configured API key by name, verified claims, or nobody. */
export type VerifiedCaller =
  | { readonly api_key: string }
  | { readonly jwt: Readonly<Record<string, unknown>> }
  | { readonly oauth2: Readonly<Record<string, unknown>> }
  | 'anonymous';

/** A caller that cannot be made for this config: the test file's fault (exit 3). */
export class CallerError extends Error {
  override readonly name = 'CallerError';
}

const TICKET = 'authlayer-policy-test.';

/** The tickets of one evaluator: the context of each caller, and where its request carries it. */
export class VerifiedCallers {
  private readonly contexts = new Map<string, AuthContext>();
  /** Each mode's section as its own package checked it, when it has one (set as the generation loads). */
  private readonly sections = new Map<AuthMode, unknown>();

  constructor(
    private readonly config: AuthConfig,
    private readonly importReal: ImportModule = (specifier) => import(specifier),
  ) {}

  /**
   * The headers that present `caller` (none for `anonymous`), and the context its mode makes.
   *
   * @throws CallerError when the config has no such key, or not the caller's mode
   */
  present(caller: VerifiedCaller): { headers: Record<string, string>; context: AuthContext | null } {
    if (caller === 'anonymous') return { headers: {}, context: null };
    if (typeof caller !== 'object' || caller === null || Object.keys(caller).length !== 1) {
      throw new CallerError('a caller is { api_key: <name> }, { jwt: <claims> }, { oauth2: <claims> } or anonymous');
    }
    const context = this.contextOf(caller);
    const ticket = `${TICKET}${context.method}.${this.contexts.size}`;
    this.contexts.set(ticket, context);
    const headers: Record<string, string> =
      context.method === 'api_key'
        ? { [this.apiKeys().header.toLowerCase()]: ticket }
        : { authorization: `Bearer ${ticket}` };
    return { headers, context };
  }

  /**
   * An ImportModule giving each mode of the config its stand-in handler, beside its package's own
   * section schema when the package is installed (so its section is checked as in service).
   */
  importModule(): ImportModule {
    const byPackage = new Map(this.config.modes.map((mode) => [modePackageName(mode), mode]));
    return async (specifier) => {
      const mode = byPackage.get(specifier);
      if (mode === undefined) return this.importReal(specifier);
      const real = (await this.importReal(specifier).catch(() => ({}))) as object;
      const createHandler = (_config: AuthConfig, deps: HandlerDeps) => {
        if (deps.section !== undefined) this.sections.set(mode, deps.section);
        return Promise.resolve(this.standIn(mode));
      };
      return { ...real, createHandler };
    };
  }

  /** `auth.api_keys` as @authlayer/api-key checked it: a policy test of API key callers needs it. */
  private apiKeys(): ApiKeySection {
    return this.sectionOf<ApiKeySection>('api_key');
  }

  /** The section of `mode` as its package checked it: a caller of that mode is made from it. */
  private sectionOf<T>(mode: AuthMode): T {
    const section = this.sections.get(mode);
    if (section === undefined) throw new CallerError(`${mode} callers need ${modePackageName(mode)} installed`);
    return section as T;
  }

  private contextOf(caller: Exclude<VerifiedCaller, 'anonymous'>): AuthContext {
    const { config } = this;
    const mode = Object.keys(caller)[0] as AuthMode;
    if (!config.modes.includes(mode)) throw new CallerError(`${mode} is not a mode auth.mode lists`);
    if ('api_key' in caller) return this.apiKeyContext(caller.api_key);
    const claims = 'jwt' in caller ? caller.jwt : caller.oauth2;
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
      throw new CallerError(`${mode} must map claim names to values`);
    }
    const readScp = config.resource !== null || config.mcp !== null;
    if (mode === 'oauth2') {
      const { claims: mapping } = this.sectionOf<TokenSection>('oauth2');
      return createClaimsMapper('oauth2', mapping, config.roles, { readScp })(claims);
    }
    const jwt = this.sectionOf<TokenSection & { providers: readonly TokenSection[] }>('jwt');
    const { providers } = jwt;
    const provider = providers.length === 0 ? jwt : providers.find((each) => each.issuer === claims.iss);
    if (provider === undefined) throw new CallerError('jwt: its iss names none of auth.jwt.providers');
    return createClaimsMapper('jwt', provider.claims, config.roles, {
      issuer: providers.length > 1 ? provider.issuer : null,
      trustRoles: provider.trustRoles,
      readScp,
    })(claims);
  }

  private apiKeyContext(name: unknown): AuthContext {
    const { keys, prefix, envVar } = this.apiKeys();
    // The spec's single key is named by its variable (`<PREFIX>_API_KEY` with a prefix).
    const variable = prefix === null ? envVar : `${prefix.toUpperCase()}_API_KEY`;
    const entry =
      keys === null
        ? name === variable
          ? { name, roles: [], tenantId: null }
          : undefined
        : keys.find((key) => key.name === name);
    if (typeof name !== 'string' || entry === undefined) {
      throw new CallerError('api_key names no key of auth.api_keys.keys (or its env_var, for the single key)');
    }
    const roles = entry.roles;
    const permissions = createPermissionResolver(this.config.roles)(roles, []);
    return createAuthContext({ method: 'api_key', userId: name, roles, permissions, tenantId: entry.tenantId });
  }

  /** The handler of `mode`: its own credential's place and its own 401 without one. */
  private standIn(mode: AuthMode): AuthHandler {
    const apiKey = mode === 'api_key';
    const { header, allowBearer } = apiKey ? this.apiKeys() : { header: '', allowBearer: false };
    const missing = apiKey
      ? new AuthError('credentials_missing', apiKeyChallenge(header, allowBearer, 'credentials_missing'))
      : bearerError('credentials_missing');
    const invalid = apiKey
      ? new AuthError('credentials_invalid', apiKeyChallenge(header, allowBearer, 'credentials_invalid'))
      : bearerError('credentials_invalid');
    const read = (request: AuthRequest): string | undefined => {
      if (apiKey) {
        const value = request.headers[header.toLowerCase()];
        return typeof value === 'string' ? value : undefined;
      }
      const bearer = readBearerToken(request);
      return bearer.kind === 'token' ? bearer.token : undefined;
    };
    const own = (request: AuthRequest) => read(request)?.startsWith(`${TICKET}${mode}.`) === true;
    return {
      method: mode,
      credentialHeaders: apiKey ? [header.toLowerCase()] : [],
      recognize: (request) => (own(request) ? 'certain' : undefined),
      ...fromAuthenticateNow((request) => {
        const ticket = read(request);
        if (ticket === undefined) throw missing;
        const context = own(request) ? this.contexts.get(ticket) : undefined;
        if (context === undefined) throw invalid;
        return context;
      }),
    };
  }
}
