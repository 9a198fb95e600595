/** The RSA algorithms of the spec's table: a public key (PEM or JWKS). */
export const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512'] as const;
/** The ECDSA algorithms of the spec's table: a public key (PEM or JWKS). */
export const EC_ALGORITHMS = ['ES256', 'ES384', 'ES512'] as const;
/** The HMAC algorithms of the spec's table: a shared secret. */
export const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
/** Every algorithm `auth.jwt.algorithms` may list. */
export const JWT_ALGORITHMS = [...RSA_ALGORITHMS, ...EC_ALGORITHMS, ...HMAC_ALGORITHMS] as const;
/**
 * One of {@link JWT_ALGORITHMS}.
 * @useDeclaredType
 */
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];
/** What a DPoP proof may be signed with (RFC 9449 §4.3: asymmetric only, never `none` or a MAC). */
export const DPOP_ALGORITHMS = [
  ...RSA_ALGORITHMS,
  'PS256',
  'PS384',
  'PS512',
  ...EC_ALGORITHMS,
  'EdDSA',
  'Ed25519',
] as const;
/** One of {@link DPOP_ALGORITHMS}. */
export type DpopAlgorithm = (typeof DPOP_ALGORITHMS)[number];

/**
 * The modes of this repository, which `auth.mode` names and core types (`auth.api_keys`, `auth.jwt`,
 * `auth.oauth2`). Each maps to the package `@authlayer/<mode with - for _>`.
 */
export const AUTH_MODES = ['api_key', 'jwt', 'oauth2'] as const;
/**
 * One of {@link AUTH_MODES}.
 * @useDeclaredType
 */
export type KnownAuthMode = (typeof AUTH_MODES)[number];
/**
 * A mode `auth.mode` names: one of {@link AUTH_MODES} (typed, so an editor completes them), or the
 * name of a mode package written outside this repository (`hmac` → `@authlayer/hmac`, or a scoped
 * package name such as `@acme/authlayer-hmac`; see docs/modes.md, "Writing a mode package").
 * @useDeclaredType
 */
export type AuthMode = KnownAuthMode | (string & {});

/** How `auth.oauth2` authenticates to the introspection endpoint (RFC 6749 §2.3.1). */
export const OAUTH2_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
/**
 * One of {@link OAUTH2_AUTH_METHODS}.
 * @useDeclaredType
 */
export type OAuth2AuthMethod = (typeof OAUTH2_AUTH_METHODS)[number];

/** The spec's defaults, in one place. */
export const DEFAULTS = Object.freeze({
  mode: 'api_key' as AuthMode,
  claims: Object.freeze({
    userId: 'sub',
    email: 'email',
    name: 'name',
    roles: 'roles',
    permissions: 'permissions',
    scopes: 'scope',
    tenantId: null,
  }),
  senderConstraint: Object.freeze({
    dpop: 'off' as const,
    dpopAlgorithms: Object.freeze(['ES256', 'RS256', 'PS256', 'EdDSA', 'Ed25519'] as DpopAlgorithm[]),
    certificateBound: 'off' as const,
    /** The DPoP proof window of oauth2 mode, which has no `leeway_seconds` of its own (jwt's default). */
    oauth2LeewaySeconds: 30,
  }),
  headerMaxLength: 64,
  leewayMaxSeconds: 300,
  staleKeysMaxSeconds: 86_400,
});
