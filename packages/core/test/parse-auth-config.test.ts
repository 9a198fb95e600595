import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { JWT_ALGORITHMS } from '../src/config/defaults.js';
import { isParsedAuthConfig, parseAuthConfig } from '../src/config/parse-auth-config.js';

// The spec's defaults, written out here (not imported) so that a wrong default fails a test.
const DEFAULT_API_KEYS = {
  envVar: 'SERVICE_API_KEY',
  prefix: null,
  header: 'X-API-Key',
  allowBearer: true,
  enabled: true,
  rotationDays: 30,
  keyFile: null,
  keys: null,
  keysFile: null,
  format: 'any',
  keyPrefixes: null,
};
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

const apiKeys = (fields: Record<string, unknown>) => ({ auth: { mode: 'api_key', api_keys: fields } });
const jwt = (fields: Record<string, unknown>) => ({ auth: { mode: 'api_key', jwt: fields } });
const jwks = { jwks_url: 'https://idp.example.com/.well-known/jwks.json' };

describe('parseAuthConfig: defaults', () => {
  it('fills every default for the minimal api_key config', () => {
    expect(parseAuthConfig({ auth: { mode: 'api_key' } })).toEqual({
      mode: 'api_key',
      modes: ['api_key'],
      fallback: 'no_auth',
      apiKeys: DEFAULT_API_KEYS,
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
      apiKeys: DEFAULT_API_KEYS,
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

  it("accepts the spec's minimal config (mode api_key with api_keys.env_var)", () => {
    const config = parseAuthConfig({ auth: { mode: 'api_key', api_keys: { env_var: 'MY_KEY' } } });
    expect(config.apiKeys).toEqual({ ...DEFAULT_API_KEYS, envVar: 'MY_KEY' });
  });

  it('converts every snake_case field once to camelCase', () => {
    const config = parseAuthConfig({
      auth: {
        mode: 'jwt',
        api_keys: {
          env_var: 'K',
          prefix: 'prod',
          header: 'X-Key',
          allow_bearer: false,
          enabled: false,
          rotation_days: 7,
        },
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
      apiKeys: {
        envVar: 'K',
        prefix: 'prod',
        header: 'X-Key',
        allowBearer: false,
        enabled: false,
        rotationDays: 7,
        keyFile: null,
        keys: null,
        keysFile: null,
        format: 'any',
        keyPrefixes: null,
      },
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
  it.each([
    ['a one-character header', { header: 'k' }, 'k'],
    ['a 64-character header', { header: 'H'.repeat(64) }, 'H'.repeat(64)],
    ['a header with every token character', { header: "X!#$%&'*+.^_`|~09az-" }, "X!#$%&'*+.^_`|~09az-"],
  ])('accepts %s', (_name, fields, header) => {
    expect(parseAuthConfig(apiKeys(fields)).apiKeys.header).toBe(header);
  });

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

  it.each([
    ['env_var with an underscore first', { env_var: '_KEY_1' }, 'envVar', '_KEY_1'],
    ['lower-case env_var', { env_var: 'my_key' }, 'envVar', 'my_key'],
    ['a prefix with digits and _', { prefix: 'eu_west1' }, 'prefix', 'eu_west1'],
    ['prefix null', { prefix: null }, 'prefix', null],
  ] as const)('accepts %s', (_name, fields, key, value) => {
    expect(parseAuthConfig(apiKeys(fields)).apiKeys[key]).toBe(value);
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
  // header
  { name: 'empty header', raw: apiKeys({ header: '' }), path: 'auth.api_keys.header', message: 'must not be empty' },
  {
    name: '65-character header',
    raw: apiKeys({ header: 'H'.repeat(65) }),
    path: 'auth.api_keys.header',
    message: 'must be at most 64 characters',
  },
  ...['X API', 'X-Key:', 'X"Key', 'X\\Key', 'X-Ключ', 'X\nKey', '(X)'].map((header) => ({
    name: `header ${JSON.stringify(header)}`,
    raw: apiKeys({ header }),
    path: 'auth.api_keys.header',
    message: 'must be a valid HTTP header name',
  })),
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
  { name: 'unknown auth field', raw: { auth: { saml: {} } }, path: 'auth.saml', message: 'unknown field' },
  {
    name: 'unknown api_keys field',
    raw: apiKeys({ envvar: 'K' }),
    path: 'auth.api_keys.envvar',
    message: 'unknown field (did you mean env_var?)',
  },
  { name: 'unknown jwt field', raw: jwt({ jwks: 'x' }), path: 'auth.jwt.jwks', message: 'unknown field' },
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
  {
    name: 'camelCase field',
    raw: apiKeys({ allowBearer: false }),
    path: 'auth.api_keys.allowBearer',
    message: 'unknown field (did you mean allow_bearer?)',
  },
  // wrong types
  {
    name: 'string for a bool',
    raw: apiKeys({ enabled: 'true' }),
    path: 'auth.api_keys.enabled',
    message: `${BOOL}, not a string`,
  },
  {
    name: 'number for a bool',
    raw: apiKeys({ allow_bearer: 1 }),
    path: 'auth.api_keys.allow_bearer',
    message: `${BOOL}, not a number`,
  },
  {
    name: 'null for a bool',
    raw: apiKeys({ allow_bearer: null }),
    path: 'auth.api_keys.allow_bearer',
    message: `${BOOL}, not null`,
  },
  {
    name: 'number for a string',
    raw: apiKeys({ env_var: 5 }),
    path: 'auth.api_keys.env_var',
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
    raw: { auth: { api_keys: [] } },
    path: 'auth.api_keys',
    message: 'must be a mapping, not a list',
  },
  {
    name: 'string for an object',
    raw: { auth: { jwt: 'x' } },
    path: 'auth.jwt',
    message: 'must be a mapping, not a string',
  },
  {
    name: 'null api_keys',
    raw: { auth: { api_keys: null } },
    path: 'auth.api_keys',
    message: 'must be a mapping, not null',
  },
  { name: 'null jwt', raw: { auth: { jwt: null } }, path: 'auth.jwt', message: 'must be a mapping, not null' },
  {
    name: 'null header',
    raw: apiKeys({ header: null }),
    path: 'auth.api_keys.header',
    message: 'must be a string, not null',
  },
  {
    name: 'null env_var',
    raw: apiKeys({ env_var: null }),
    path: 'auth.api_keys.env_var',
    message: 'must be a string, not null',
  },
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
    name: 'fractional rotation_days',
    raw: apiKeys({ rotation_days: 0.5 }),
    path: 'auth.api_keys.rotation_days',
    message: 'must be an integer, not a fraction',
  },
  {
    name: 'rotation_days 0',
    raw: apiKeys({ rotation_days: 0 }),
    path: 'auth.api_keys.rotation_days',
    message: 'must be at least 1',
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
  ...['1KEY', 'MY-KEY', 'MY KEY', '', 'KEY$'].map((name) => ({
    name: `env_var ${JSON.stringify(name)}`,
    raw: apiKeys({ env_var: name }),
    path: 'auth.api_keys.env_var',
    message: 'must be an environment variable name (letters, digits, _)',
  })),
  {
    name: 'public_key_env with a dash',
    raw: jwt({ public_key_env: 'JWT-PEM' }),
    path: 'auth.jwt.public_key_env',
    message: 'must be an environment variable name (letters, digits, _)',
  },
  ...['_prod', '1prod', 'prod-eu', '', 'prod.eu', 'préprod'].map((prefix) => ({
    name: `prefix ${JSON.stringify(prefix)}`,
    raw: apiKeys({ prefix }),
    path: 'auth.api_keys.prefix',
    message: 'must be a letter, then letters, digits and _ (it names the variable <PREFIX>_API_KEY)',
  })),
  ...['Authorization', 'authorization', 'AUTHORIZATION'].map((header) => ({
    name: `header ${header}`,
    raw: apiKeys({ header }),
    path: 'auth.api_keys.header',
    message: 'must not be Authorization (use allow_bearer)',
  })),
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
      auth: { mode: 'jwr', api_keys: { header: '', enabled: 1, extra: true }, jwt: { leeway_seconds: 301 } },
    });
    expect(error.issues).toEqual([
      { path: 'auth.mode', message: 'must be one of: api_key, jwt, oauth2 (did you mean jwt?)' },
      { path: 'auth.api_keys.header', message: 'must not be empty' },
      { path: 'auth.api_keys.enabled', message: `${BOOL}, not a number` },
      { path: 'auth.api_keys.extra', message: 'unknown field' },
      { path: 'auth.jwt.leeway_seconds', message: 'must be 0 to 300' },
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
      auth: { mode: 'jwt', api_keys: { header: '' }, jwt: { ...jwks, public_key_env: 'P', algorithms: ['HS384'] } },
    };
    const paths = ['auth.api_keys.header', 'auth.jwt', 'auth.jwt.algorithms'];
    expect(configErrorOf(raw).issues.map((issue) => issue.path)).toEqual(paths);
  });

  it('never echoes a refused value in the message', () => {
    const secret = 'sekrit-value-123';
    const error = configErrorOf(apiKeys({ header: `${secret} `, env_var: `${secret}-`, enabled: secret }));
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
    for (const part of [config, config.apiKeys, config.jwt, config.jwt.algorithms, config.jwt.claims, config.roles]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(Object.isFrozen(config.roles[0])).toBe(true);
    expect(Object.isFrozen(config.roles[0]?.permissions)).toBe(true);
    expect(() => {
      (config.apiKeys as { header: string }).header = 'X-Other';
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
      'apiKeys',
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
