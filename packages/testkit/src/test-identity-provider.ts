import { createSigningKey, type SigningKey } from './signing-key.js';
import { startIntrospectionServer, type IntrospectionServer, type OpaqueTokenOptions } from './introspection-server.js';
import { startJwksServer, type JwksServer } from './jwks-server.js';
import { mintToken } from './mint-token.js';

/** A config in the YAML's shape (`{ auth, roles, ... }`), as `createAuthMiddleware` takes it. */
export type RawConfig = Readonly<Record<string, unknown>>;

/** What {@link TestIdentityProvider.signToken} sets besides the claims. */
export interface SignTokenOptions {
  /** Seconds until `exp`. Default 300. */
  readonly expiresIn?: number;
}

/** An identity provider on loopback for a user's own tests: JWTs and opaque tokens it vouches for. */
export interface TestIdentityProvider {
  /** `https://issuer.test` style: the `iss` of its tokens (its own origin). */
  readonly issuer: string;
  /** The `aud` of its tokens: `authlayer-test-api`. */
  readonly audience: string;
  /** Its JWKS (the public half of a key generated at start), for `auth.jwt.jwks_url`. */
  readonly jwksUrl: string;
  /** Its introspection endpoint, for `auth.oauth2.introspection_url`. */
  readonly introspectionUrl: string;
  /** The environment the middleware needs (`OAUTH2_CLIENT_SECRET`): pass it as `{ env }`. */
  readonly env: Readonly<Record<string, string>>;
  /** A JWT signed with the generated key: `iss`, `aud`, `iat`, `exp` set, `claims` on top. */
  signToken(claims?: Readonly<Record<string, unknown>>, options?: SignTokenOptions): Promise<string>;
  /** An opaque token that the introspection endpoint answers as active with `claims` (and `iss`, `aud`). */
  issueOpaqueToken(claims?: Readonly<Record<string, unknown>>, options?: OpaqueTokenOptions): string;
  /** The opaque token is inactive from now on. */
  revoke(token: string): void;
  /**
   * `base` (your own config, YAML shape) with its `auth.mode` set to `mode` and the key material
   * of that mode pointed at this provider. Everything else of `base` stays: claims mapping,
   * roles, access rules, so your tests exercise your real config.
   */
  config(mode: 'jwt' | 'oauth2', base?: RawConfig): RawConfig;
  /** Requests received so far: key set fetches and introspections. */
  readonly hits: { readonly jwks: number; readonly introspection: number };
  /** Stops both endpoints. */
  close(): Promise<void>;
}

const AUDIENCE = 'authlayer-test-api';
const SECRET_ENV = 'OAUTH2_CLIENT_SECRET';

/**
 * Starts a loopback identity provider for tests: a generated RS256 key, a JWKS server and an
 * introspection endpoint on 127.0.0.1 (ports chosen by the system). Close it in `afterAll`.
 *
 * @example
 * const idp = await startTestIdentityProvider();
 * const auth = await createAuthMiddleware(idp.config('jwt', myConfig), { env: idp.env });
 * const token = await idp.signToken({ sub: 'user-1', roles: ['admin'] });
 * await request(app).get('/me').set('Authorization', `Bearer ${token}`).expect(200);
 */
export async function startTestIdentityProvider(): Promise<TestIdentityProvider> {
  const key: SigningKey = await createSigningKey('RS256');
  const jwks: JwksServer = await startJwksServer([key.publicJwk]);
  const issuer = new URL(jwks.url).origin;
  const introspection: IntrospectionServer = await startIntrospectionServer({ issuer });
  return {
    issuer,
    audience: AUDIENCE,
    jwksUrl: jwks.url,
    introspectionUrl: introspection.url,
    env: { [SECRET_ENV]: introspection.clientSecret },
    signToken(claims = {}, { expiresIn = 300 } = {}) {
      const iat = Math.floor(Date.now() / 1000);
      return mintToken(key, { iss: issuer, aud: AUDIENCE, iat, exp: iat + expiresIn, ...claims });
    },
    issueOpaqueToken: (claims = {}, options) => introspection.issueToken({ aud: AUDIENCE, ...claims }, options),
    revoke: (token) => introspection.revoke(token),
    config(mode, base = {}) {
      const auth = (base.auth ?? {}) as Record<string, unknown>;
      const own = (auth[mode] ?? {}) as Record<string, unknown>;
      const material =
        mode === 'jwt'
          ? { jwks_url: jwks.url, public_key_env: null, issuer, audience: AUDIENCE, algorithms: ['RS256'] }
          : {
              introspection_url: introspection.url,
              discovery: false,
              issuer,
              audience: AUDIENCE,
              client_id: introspection.clientId,
              client_secret_env: SECRET_ENV,
            };
      return { ...base, auth: { ...auth, mode, [mode]: { ...own, ...material } } };
    },
    get hits() {
      return { jwks: jwks.hits, introspection: introspection.requests };
    },
    close: async () => {
      await Promise.all([jwks.close(), introspection.close()]);
    },
  };
}
