import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { JWT_ALGORITHMS } from '../src/config/defaults.js';
import { isParsedAuthConfig, parseAuthConfig } from '../src/config/parse-auth-config.js';

// The spec's defaults, written out here (not imported) so that a wrong default fails a test.
const DEFAULT_CLAIMS = {
  userId: 'sub',
  email: 'email',
  name: 'name',
  roles: 'roles',
  permissions: 'permissions',
  scopes: 'scope',
  tenantId: null,
};
const DEFAULT_JWT = {
  jwksUrl: null,
  publicKeyEnv: null,
  publicKeyFile: null,
  issuer: null,
  audience: null,
  algorithms: ['RS256'],
  leewaySeconds: 30,
  claims: DEFAULT_CLAIMS,
  discovery: false,
  staleKeysSeconds: 3600,
  trustRoles: true,
  requiredClaims: [],
  tokenType: null,
  cookie: null,
  providers: [],
  dpop: 'off',
  dpopAlgorithms: ['ES256', 'RS256', 'PS256', 'EdDSA', 'Ed25519'],
  certificateBound: 'off',
};
const DEFAULT_OAUTH2 = {
  introspectionUrl: null,
  discovery: false,
  issuer: null,
  audience: null,
  clientId: null,
  clientSecretEnv: 'OAUTH2_CLIENT_SECRET',
  clientSecretFile: null,
  authMethod: 'client_secret_basic',
  cacheSeconds: 60,
  timeoutMs: 5000,
  cacheStore: null,
  claims: DEFAULT_CLAIMS,
  dpop: 'off',
  dpopAlgorithms: ['ES256', 'RS256', 'PS256', 'EdDSA', 'Ed25519'],
  certificateBound: 'off',
};

/** Runs the parser and returns the ConfigError it must throw. */
function configErrorOf(raw: unknown): ConfigError {
  try {
    parseAuthConfig(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('parseAuthConfig accepted the config');
}

const jwt = (fields: Record<string, unknown>) => ({ auth: { mode: 'api_key', jwt: fields } });
const jwks = { jwks_url: 'https://idp.example.com/.well-known/jwks.json' };

describe('parseAuthConfig: defaults', () => {
  it('fills every default for the minimal api_key config', () => {
    expect(parseAuthConfig({ auth: { mode: 'api_key' } })).toEqual({
      mode: 'api_key',
      modes: ['api_key'],
      fallback: 'no_auth',
      jwt: DEFAULT_JWT,
      oauth2: DEFAULT_OAUTH2,
      roles: [],
      rateLimit: null,
      metrics: false,
      reload: { watch: false },
      access: {},
      accessPolicy: { default: null, reportOnly: false, log: 'none' },
      forwardAuth: {
        enabled: false,
        identityHeaders: {
          'X-Auth-User-Id': 'userId',
          'X-Auth-Method': 'method',
          'X-Auth-Roles': 'roles',
          'X-Auth-Tenant': 'tenantId',
        },
        proxy: null,
        listen: null,
      },
      resource: null,
      mcp: null,
      revocation: null,
      tls: null,
    });
  });

  it('fills every default for a jwt config with only jwks_url', () => {
    expect(parseAuthConfig({ auth: { mode: 'jwt', jwt: jwks } })).toEqual({
      mode: 'jwt',
      modes: ['jwt'],
      fallback: 'no_auth',
      jwt: { ...DEFAULT_JWT, jwksUrl: jwks.jwks_url },
      oauth2: DEFAULT_OAUTH2,
      roles: [],
      rateLimit: null,
      metrics: false,
      reload: { watch: false },
      access: {},
      accessPolicy: { default: null, reportOnly: false, log: 'none' },
      forwardAuth: {
        enabled: false,
        identityHeaders: {
          'X-Auth-User-Id': 'userId',
          'X-Auth-Method': 'method',
          'X-Auth-Roles': 'roles',
          'X-Auth-Tenant': 'tenantId',
        },
        proxy: null,
        listen: null,
      },
      resource: null,
      mcp: null,
      revocation: null,
      tls: null,
    });
  });

  it('defaults the mode to api_key', () => {
    expect(parseAuthConfig({ auth: {} }).mode).toBe('api_key');
  });

  it("accepts the spec's minimal config (mode api_key with api_keys.env_var), the section kept as written", () => {
    const config = parseAuthConfig({ auth: { mode: 'api_key', api_keys: { env_var: 'MY_KEY' } } });
    // @authlayer/api-key checks and converts it (its config-section tests).
    expect(config.modeSections).toEqual({ api_keys: { env_var: 'MY_KEY' } });
  });

  it('converts every snake_case field once to camelCase, and keeps a mode package section as written', () => {
    // @authlayer/api-key converts its own section (its config-section tests).
    const apiKeys = { env_var: 'K', prefix: 'prod', header: 'X-Key', allow_bearer: false, rotation_days: 7 };
    const config = parseAuthConfig({
      auth: {
        mode: 'jwt',
        api_keys: apiKeys,
        jwt: {
          public_key_env: 'JWT_PEM',
          issuer: 'https://idp',
          audience: 'api',
          algorithms: ['ES256', 'ES256', 'HS256'],
          leeway_seconds: 0,
          claims: { user_id: 'uid', tenant_id: 'org.id', scopes: 'scp' },
        },
      },
      roles: [{ name: 'admin', permissions: ['a', 'b', 'a'] }, { name: 'user' }],
    });
    expect(config).toEqual({
      mode: 'jwt',
      modes: ['jwt'],
      fallback: 'no_auth',
      access: {},
      accessPolicy: { default: null, reportOnly: false, log: 'none' },
      forwardAuth: {
        enabled: false,
        identityHeaders: {
          'X-Auth-User-Id': 'userId',
          'X-Auth-Method': 'method',
          'X-Auth-Roles': 'roles',
          'X-Auth-Tenant': 'tenantId',
        },
        proxy: null,
        listen: null,
      },
      resource: null,
      mcp: null,
      revocation: null,
      tls: null,
      modeSections: { api_keys: apiKeys },
      jwt: {
        jwksUrl: null,
        publicKeyEnv: 'JWT_PEM',
        publicKeyFile: null,
        issuer: 'https://idp',
        audience: 'api',
        algorithms: ['ES256', 'HS256'],
        leewaySeconds: 0,
        claims: { ...DEFAULT_CLAIMS, userId: 'uid', tenantId: 'org.id', scopes: 'scp' },
        discovery: false,
        staleKeysSeconds: 3600,
        trustRoles: true,
        requiredClaims: [],
        tokenType: null,
        cookie: null,
        providers: [],
        dpop: 'off',
        dpopAlgorithms: ['ES256', 'RS256', 'PS256', 'EdDSA', 'Ed25519'],
        certificateBound: 'off',
      },
      oauth2: DEFAULT_OAUTH2,
      roles: [
        { name: 'admin', permissions: ['a', 'b'] },
        { name: 'user', permissions: [] },
      ],
      rateLimit: null,
      metrics: false,
      reload: { watch: false },
    });
  });

  it('takes claims: null as every default claim', () => {
    expect(parseAuthConfig(jwt({ claims: null })).jwt.claims).toEqual(DEFAULT_CLAIMS);
  });

  it('accepts dot paths for claims', () => {
    const claims = { roles: 'realm_access.roles', tenant_id: 'org.tenant.id', user_id: 'a-b:c' };
    expect(parseAuthConfig(jwt({ claims })).jwt.claims).toEqual({
      ...DEFAULT_CLAIMS,
      roles: 'realm_access.roles',
      tenantId: 'org.tenant.id',
      userId: 'a-b:c',
    });
  });
});

describe('parseAuthConfig: accepted boundaries', () => {
  it.each([0, 1, 300, 300.0])('accepts leeway_seconds %p', (leeway) => {
    expect(parseAuthConfig(jwt({ leeway_seconds: leeway })).jwt.leewaySeconds).toBe(leeway);
  });

  it.each(JWT_ALGORITHMS.filter((alg) => !alg.startsWith('HS')))('accepts %s with a jwks_url', (alg) => {
    expect(parseAuthConfig({ auth: { mode: 'jwt', jwt: { ...jwks, algorithms: [alg] } } }).jwt.algorithms).toEqual([
      alg,
    ]);
  });

  it.each([...JWT_ALGORITHMS])('accepts %s with public_key_env', (alg) => {
    const config = parseAuthConfig({ auth: { mode: 'jwt', jwt: { public_key_env: 'KEY', algorithms: [alg] } } });
    expect(config.jwt.algorithms).toEqual([alg]);
  });

  it('lists exactly the nine algorithms of the spec table', () => {
    expect([...JWT_ALGORITHMS].sort()).toEqual([
      'ES256',
      'ES384',
      'ES512',
      'HS256',
      'HS384',
      'HS512',
      'RS256',
      'RS384',
      'RS512',
    ]);
  });

  it.each(['http://127.0.0.1:8080/jwks', 'https://idp.example.com/jwks'])('accepts jwks_url %s', (url) => {
    expect(parseAuthConfig(jwt({ jwks_url: url })).jwt.jwksUrl).toBe(url);
  });
});

interface RefusedCase {
  name: string;
  raw: unknown;
  path: string;
  message: string;
}

const ONE_OF_ALGS = 'must be one of: RS256, RS384, RS512, ES256, ES384, ES512, HS256, HS384, HS512';
const BOOL = 'must be a boolean (true or false)';

const refused: RefusedCase[] = [
  // the document itself
  { name: 'null document', raw: null, path: 'config', message: 'must be a mapping, not null' },
  { name: 'list document', raw: [], path: 'config', message: 'must be a mapping, not a list' },
  { name: 'string document', raw: 'auth', path: 'config', message: 'must be a mapping, not a string' },
  { name: 'no auth section', raw: {}, path: 'auth', message: 'is required' },
  { name: 'auth null', raw: { auth: null }, path: 'auth', message: 'must be a mapping, not null' },
  // mode
  {
    name: 'a near miss of a known mode',
    raw: { auth: { mode: 'jwr' } },
    path: 'auth.mode',
    message: 'must be one of: api_key, jwt, oauth2 (did you mean jwt?)',
  },
  {
    name: 'mode in upper case',
    raw: { auth: { mode: 'API_KEY' } },
    path: 'auth.mode',
    message: 'must be one of: api_key, jwt, oauth2 (did you mean api_key?)',
  },
  {
    name: 'a mode that is not a package name',
    raw: { auth: { mode: 'Saml!' } },
    path: 'auth.mode',
    message: "must be one of: api_key, jwt, oauth2, or a mode package's name (lower case: letters, digits, _ and -)",
  },
  // leeway
  ...[-1, 301, 1_000_000].map((leeway) => ({
    name: `leeway ${leeway}`,
    raw: jwt({ leeway_seconds: leeway }),
    path: 'auth.jwt.leeway_seconds',
    message: 'must be 0 to 300',
  })),
  {
    name: 'fractional leeway',
    raw: jwt({ leeway_seconds: 1.5 }),
    path: 'auth.jwt.leeway_seconds',
    message: 'must be an integer, not a fraction',
  },
  {
    name: 'leeway as a string',
    raw: jwt({ leeway_seconds: '30' }),
    path: 'auth.jwt.leeway_seconds',
    message: 'must be a number, not a string',
  },
  {
    name: 'leeway NaN',
    raw: jwt({ leeway_seconds: NaN }),
    path: 'auth.jwt.leeway_seconds',
    message: 'must be a number, not NaN',
  },
  {
    name: 'leeway Infinity',
    raw: jwt({ leeway_seconds: Infinity }),
    path: 'auth.jwt.leeway_seconds',
    message: 'must be a number, not Infinity',
  },
  // algorithms
  ...['none', 'HS1', 'rs256', 'PS256', 'EdDSA', ''].map((alg) => ({
    name: `algorithm ${JSON.stringify(alg)}`,
    raw: jwt({ algorithms: ['RS256', alg] }),
    path: 'auth.jwt.algorithms[1]',
    message: ONE_OF_ALGS,
  })),
  {
    name: 'no algorithm',
    raw: jwt({ algorithms: [] }),
    path: 'auth.jwt.algorithms',
    message: 'must list at least one algorithm',
  },
  {
    name: 'algorithms as a string',
    raw: jwt({ algorithms: 'RS256' }),
    path: 'auth.jwt.algorithms',
    message: 'must be a list, not a string',
  },
  // unknown fields, at every level
  {
    name: 'unknown top-level field',
    raw: { auth: {}, rate_limits: 5 },
    path: 'rate_limits',
    message: 'unknown field (did you mean rate_limit?)',
  },
  { name: 'unknown jwt field', raw: jwt({ jwks: 'x' }), path: 'auth.jwt.jwks', message: 'unknown field' },
  {
    name: 'camelCase field',
    raw: jwt({ jwksUrl: 'https://x' }),
    path: 'auth.jwt.jwksUrl',
    message: 'unknown field (did you mean jwks_url?)',
  },
  {
    name: 'unknown claims field',
    raw: jwt({ claims: { sub: 'x' } }),
    path: 'auth.jwt.claims.sub',
    message: 'unknown field',
  },
  {
    name: 'unknown roles[i] field',
    raw: { auth: {}, roles: [{ name: 'a' }, { name: 'b', scopes: [] }] },
    path: 'roles[1].scopes',
    message: 'unknown field',
  },
  // wrong types
  { name: 'string for a bool', raw: { auth: {}, metrics: 'true' }, path: 'metrics', message: `${BOOL}, not a string` },
  {
    name: 'number for a bool',
    raw: jwt({ discovery: 1 }),
    path: 'auth.jwt.discovery',
    message: `${BOOL}, not a number`,
  },
  {
    name: 'null for a bool',
    raw: { auth: {}, reload: { watch: null } },
    path: 'reload.watch',
    message: `${BOOL}, not null`,
  },
  {
    name: 'number for a string',
    raw: jwt({ public_key_env: 5 }),
    path: 'auth.jwt.public_key_env',
    message: 'must be a string, not a number',
  },
  {
    name: 'bool for a string',
    raw: jwt({ issuer: true }),
    path: 'auth.jwt.issuer',
    message: 'must be a string, not a boolean',
  },
  {
    name: 'list for an object',
    raw: { auth: { oauth2: [] } },
    path: 'auth.oauth2',
    message: 'must be a mapping, not a list',
  },
  {
    name: 'string for an object',
    raw: { auth: { jwt: 'x' } },
    path: 'auth.jwt',
    message: 'must be a mapping, not a string',
  },
  { name: 'null jwt', raw: { auth: { jwt: null } }, path: 'auth.jwt', message: 'must be a mapping, not null' },
  {
    name: 'null leeway',
    raw: jwt({ leeway_seconds: null }),
    path: 'auth.jwt.leeway_seconds',
    message: 'must be a number, not null',
  },
  {
    name: 'null claim',
    raw: jwt({ claims: { email: null } }),
    path: 'auth.jwt.claims.email',
    message: 'must be a string, not null',
  },
  {
    name: 'roles as a mapping',
    raw: { auth: {}, roles: { admin: [] } },
    path: 'roles',
    message: 'must be a list, not a mapping',
  },
  { name: 'roles null', raw: { auth: {}, roles: null }, path: 'roles', message: 'must be a list, not null' },
  {
    name: 'role without name',
    raw: { auth: {}, roles: [{ permissions: [] }] },
    path: 'roles[0].name',
    message: 'is required',
  },
  {
    name: 'role with empty name',
    raw: { auth: {}, roles: [{ name: '' }] },
    path: 'roles[0].name',
    message: 'must not be empty',
  },
  {
    name: 'permissions as a string',
    raw: { auth: {}, roles: [{ name: 'a', permissions: 'read' }] },
    path: 'roles[0].permissions',
    message: 'must be a list, not a string',
  },
  {
    name: 'an empty permission',
    raw: { auth: {}, roles: [{ name: 'a', permissions: ['read', ''] }] },
    path: 'roles[0].permissions[1]',
    message: 'must not be empty',
  },
  // cross-field rules
  {
    name: 'jwt mode without a key source',
    raw: { auth: { mode: 'jwt' } },
    path: 'auth.jwt',
    message: 'jwt mode needs jwks_url, public_key_env, public_key_file, discovery or providers',
  },
  {
    name: 'both key sources',
    raw: { auth: { mode: 'jwt', jwt: { ...jwks, public_key_env: 'PEM' } } },
    path: 'auth.jwt',
    message: 'set one of jwks_url, public_key_env, public_key_file and discovery, not jwks_url and public_key_env',
  },
  {
    name: 'HMAC algorithms with jwks_url',
    raw: { auth: { mode: 'jwt', jwt: { ...jwks, algorithms: ['HS256', 'RS256', 'HS512'] } } },
    path: 'auth.jwt.algorithms',
    message: 'HS256, HS512 need a shared secret through public_key_env or public_key_file, not jwks_url',
  },
  {
    name: 'duplicate role',
    raw: { auth: {}, roles: [{ name: 'a' }, { name: 'b' }, { name: 'a' }] },
    path: 'roles[2].name',
    message: 'duplicate role "a"',
  },
  // names
  {
    name: 'public_key_env with a dash',
    raw: jwt({ public_key_env: 'JWT-PEM' }),
    path: 'auth.jwt.public_key_env',
    message: 'must be an environment variable name (letters, digits, _)',
  },
  // jwks_url
  ...['ftp://idp.example.com/jwks', 'file:///etc/jwks.json', 'not a url', 'idp.example.com/jwks'].map((url) => ({
    name: `jwks_url ${url}`,
    raw: jwt({ jwks_url: url }),
    path: 'auth.jwt.jwks_url',
    message: 'must be an http or https URL',
  })),
  { name: 'empty issuer', raw: jwt({ issuer: '' }), path: 'auth.jwt.issuer', message: 'must not be empty' },
  // claims
  ...['', '.roles', 'realm_access.', 'a..b'].map((claim) => ({
    name: `claim path ${JSON.stringify(claim)}`,
    raw: jwt({ claims: { roles: claim } }),
    path: 'auth.jwt.claims.roles',
    message: 'must be a claim name or a dot path such as realm_access.roles',
  })),
];

describe('parseAuthConfig: refused configs', () => {
  it.each(refused)('$name → $path', ({ raw, path, message }) => {
    const error = configErrorOf(raw);
    expect(error.issues).toEqual([{ path, message }]);
    expect(error.path).toBe(path);
    expect(error.message).toBe(`${path}: ${message}`);
  });

  it('reports several issues at once, in order, on one line', () => {
    const error = configErrorOf({
      auth: { mode: 'jwr', jwt: { issuer: '', leeway_seconds: 301, discovery: 1, extra: true } },
    });
    expect(error.issues).toEqual([
      { path: 'auth.mode', message: 'must be one of: api_key, jwt, oauth2 (did you mean jwt?)' },
      { path: 'auth.jwt.issuer', message: 'must not be empty' },
      { path: 'auth.jwt.leeway_seconds', message: 'must be 0 to 300' },
      { path: 'auth.jwt.discovery', message: `${BOOL}, not a number` },
      { path: 'auth.jwt.extra', message: 'unknown field' },
    ]);
    expect(error.message).toBe(error.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '));
    expect(error.message).not.toContain('\n');
  });

  it('lists every unknown field of one object', () => {
    expect(configErrorOf({ auth: {}, a: 1, b: 2 }).issues).toEqual([
      { path: 'a', message: 'unknown field' },
      { path: 'b', message: 'unknown field' },
    ]);
  });

  it('reports the cross-field rules together, and with a field issue', () => {
    const raw = {
      auth: { mode: 'jwt', jwt: { ...jwks, public_key_env: 'P', algorithms: ['HS384'] } },
      roles: [{ name: '' }],
    };
    const paths = ['roles[0].name', 'auth.jwt', 'auth.jwt.algorithms'];
    expect(configErrorOf(raw).issues.map((issue) => issue.path)).toEqual(paths);
  });

  it('never echoes a refused value in the message', () => {
    const secret = 'sekrit-value-123';
    const error = configErrorOf(jwt({ jwks_url: `${secret} `, public_key_env: `${secret}-`, discovery: secret }));
    expect(error.issues).toHaveLength(3);
    expect(error.message).not.toContain(secret);
  });
});

describe('parseAuthConfig: the result', () => {
  it('is deeply frozen', () => {
    const config = parseAuthConfig({
      auth: { mode: 'jwt', jwt: { ...jwks, claims: { roles: 'a.b' } } },
      roles: [{ name: 'admin', permissions: ['x'] }],
    });
    for (const part of [config, config.oauth2, config.jwt, config.jwt.algorithms, config.jwt.claims, config.roles]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(Object.isFrozen(config.roles[0])).toBe(true);
    expect(Object.isFrozen(config.roles[0]?.permissions)).toBe(true);
    expect(() => {
      (config.jwt as { issuer: string }).issuer = 'https://other';
    }).toThrow(TypeError);
  });

  it('does not share or change the raw input', () => {
    const raw = {
      auth: { mode: 'jwt', jwt: { ...jwks, algorithms: ['RS256'] } },
      roles: [{ name: 'a', permissions: ['p'] }],
    };
    const before = structuredClone(raw);
    const config = parseAuthConfig(raw);
    expect(raw).toEqual(before);
    expect(Object.isFrozen(raw.auth.jwt.algorithms)).toBe(false);
    expect(config.jwt.algorithms).not.toBe(raw.auth.jwt.algorithms);
  });

  it('serialises to plain JSON without the parsed marker', () => {
    const config = parseAuthConfig({ auth: {} });
    expect(Object.keys(config)).toEqual([
      'mode',
      'modes',
      'fallback',
      'jwt',
      'oauth2',
      'roles',
      'rateLimit',
      'metrics',
      'reload',
      'access',
      'accessPolicy',
      'forwardAuth',
      'resource',
      'mcp',
      'revocation',
      'tls',
    ]);
    expect(JSON.parse(JSON.stringify(config))).toEqual(config);
  });
});

describe('isParsedAuthConfig', () => {
  const parsed = parseAuthConfig({ auth: { mode: 'api_key' } });

  it('is true for a config parseAuthConfig made', () => {
    expect(isParsedAuthConfig(parsed)).toBe(true);
  });

  it.each([
    ['the raw config', { auth: { mode: 'api_key' } }],
    ['a spread copy', { ...parsed }],
    ['a JSON copy', JSON.parse(JSON.stringify(parsed)) as unknown],
    ['a structured clone', structuredClone(parsed)],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'config'],
    ['a number', 1],
    ['a function', () => parsed],
  ])('is false for %s', (_name, value) => {
    expect(isParsedAuthConfig(value)).toBe(false);
  });
});
