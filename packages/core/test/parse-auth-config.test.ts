import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { JWT_ALGORITHMS } from '../src/config/defaults.js';
import { isParsedAuthConfig, parseAuthConfig } from '../src/config/parse-auth-config.js';

const FORWARD_AUTH_DEFAULT = {
  enabled: false,
  identityHeaders: {
    'X-Auth-User-Id': 'userId',
    'X-Auth-Method': 'method',
    'X-Auth-Roles': 'roles',
    'X-Auth-Tenant': 'tenantId',
  },
  proxy: null,
  listen: null,
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

const jwks = { jwks_url: 'https://idp.example.com/.well-known/jwks.json' };

describe('parseAuthConfig: defaults', () => {
  it('fills every default for the minimal api_key config', () => {
    expect(parseAuthConfig({ auth: { mode: 'api_key' } })).toEqual({
      mode: 'api_key',
      modes: ['api_key'],
      fallback: 'no_auth',
      roles: [],
      rateLimit: null,
      metrics: false,
      reload: { watch: false },
      access: {},
      accessPolicy: { default: null, reportOnly: false, log: 'none' },
      forwardAuth: FORWARD_AUTH_DEFAULT,
      resource: null,
      mcp: null,
      revocation: null,
      tls: null,
    });
  });

  it('fills every default for a jwt config with only jwks_url, the section kept as written', () => {
    // @authlayer/jwt checks and converts it (its config-section tests).
    expect(parseAuthConfig({ auth: { mode: 'jwt', jwt: jwks } })).toEqual({
      mode: 'jwt',
      modes: ['jwt'],
      fallback: 'no_auth',
      roles: [],
      rateLimit: null,
      metrics: false,
      reload: { watch: false },
      access: {},
      accessPolicy: { default: null, reportOnly: false, log: 'none' },
      forwardAuth: FORWARD_AUTH_DEFAULT,
      resource: null,
      mcp: null,
      revocation: null,
      tls: null,
      modeSections: { jwt: jwks },
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

  it('converts every snake_case field once to camelCase, and keeps each mode package section as written', () => {
    // @authlayer/api-key and @authlayer/jwt convert their own sections (their config-section tests).
    const apiKeys = { env_var: 'K', prefix: 'prod', header: 'X-Key', allow_bearer: false, rotation_days: 7 };
    const jwt = { public_key_env: 'JWT_PEM', algorithms: ['ES256', 'ES256'], claims: { user_id: 'uid' } };
    const config = parseAuthConfig({
      auth: { mode: 'jwt', api_keys: apiKeys, jwt },
      roles: [{ name: 'admin', permissions: ['a', 'b', 'a'] }, { name: 'user' }],
      rate_limit: { requests_per_minute: 60, failed_auth_per_minute: 5, trust_proxy: 2 },
      metrics: true,
      reload: { watch: true },
      resource: { identifier: 'https://api.example.com', audience_strict: true },
      forward_auth: { enabled: true, proxy: 'nginx' },
    });
    expect(config).toEqual({
      mode: 'jwt',
      modes: ['jwt'],
      fallback: 'no_auth',
      access: {},
      accessPolicy: { default: null, reportOnly: false, log: 'none' },
      forwardAuth: { ...FORWARD_AUTH_DEFAULT, enabled: true, proxy: 'nginx' },
      resource: {
        identifier: 'https://api.example.com',
        name: null,
        documentation: null,
        audienceStrict: true,
        serveMetadata: true,
      },
      mcp: null,
      revocation: null,
      tls: null,
      modeSections: { api_keys: apiKeys, jwt },
      roles: [
        { name: 'admin', permissions: ['a', 'b'] },
        { name: 'user', permissions: [] },
      ],
      rateLimit: { requestsPerMinute: 60, failedAuthPerMinute: 5, store: 'memory', trustProxy: 2 },
      metrics: true,
      reload: { watch: true },
    });
  });

  it('keeps a mode section as written, however broken: its package names what is wrong', () => {
    const broken = { leeway_seconds: 301, algorithms: ['none'], extra: true };
    expect(parseAuthConfig({ auth: { mode: 'jwt', jwt: broken, oauth2: [] } }).modeSections).toEqual({
      jwt: broken,
      oauth2: [],
    });
  });
});

describe('parseAuthConfig: accepted boundaries', () => {
  it.each([0, 1, 16])('accepts rate_limit.trust_proxy %p', (proxies) => {
    expect(parseAuthConfig({ auth: {}, rate_limit: { trust_proxy: proxies } }).rateLimit?.trustProxy).toBe(proxies);
  });

  it.each([1, 1.0, 1_000_000])('accepts rate_limit.requests_per_minute %p', (limit) => {
    const config = parseAuthConfig({ auth: {}, rate_limit: { requests_per_minute: limit } });
    expect(config.rateLimit?.requestsPerMinute).toBe(limit);
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

  it.each(['http://127.0.0.1:8080/', 'https://api.example.com/v1'])('accepts resource.identifier %s', (url) => {
    expect(parseAuthConfig({ auth: {}, resource: { identifier: url } }).resource?.identifier).toBe(url);
  });
});

interface RefusedCase {
  name: string;
  raw: unknown;
  path: string;
  message: string;
}

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
  // numbers
  ...[0, -1].map((limit) => ({
    name: `requests_per_minute ${limit}`,
    raw: { auth: {}, rate_limit: { requests_per_minute: limit } },
    path: 'rate_limit.requests_per_minute',
    message: 'must be at least 1',
  })),
  {
    name: 'fractional requests_per_minute',
    raw: { auth: {}, rate_limit: { requests_per_minute: 1.5 } },
    path: 'rate_limit.requests_per_minute',
    message: 'must be an integer, not a fraction',
  },
  {
    name: 'requests_per_minute as a string',
    raw: { auth: {}, rate_limit: { requests_per_minute: '30' } },
    path: 'rate_limit.requests_per_minute',
    message: 'must be a number, not a string',
  },
  {
    name: 'requests_per_minute NaN',
    raw: { auth: {}, rate_limit: { requests_per_minute: NaN } },
    path: 'rate_limit.requests_per_minute',
    message: 'must be a number, not NaN',
  },
  {
    name: 'requests_per_minute Infinity',
    raw: { auth: {}, rate_limit: { requests_per_minute: Infinity } },
    path: 'rate_limit.requests_per_minute',
    message: 'must be a number, not Infinity',
  },
  ...[0, 64 * 1024 * 1024 + 1].map((bytes) => ({
    name: `max_body_bytes ${bytes}`,
    raw: { auth: {}, mcp: { endpoint: '/mcp', max_body_bytes: bytes }, access: { 'POST /mcp': 'authenticated' } },
    path: 'mcp.max_body_bytes',
    message: bytes === 0 ? 'must be at least 1' : 'must be at most 67108864 (64 MiB)',
  })),
  // one of a list of words
  ...['Nginx', 'caddy', ''].map((proxy) => ({
    name: `forward_auth.proxy ${JSON.stringify(proxy)}`,
    raw: { auth: {}, forward_auth: { proxy } },
    path: 'forward_auth.proxy',
    message: 'must be one of: nginx, traefik',
  })),
  // unknown fields, at every level
  {
    name: 'unknown top-level field',
    raw: { auth: {}, rate_limits: 5 },
    path: 'rate_limits',
    message: 'unknown field (did you mean rate_limit?)',
  },
  {
    name: 'unknown reload field',
    raw: { auth: {}, reload: { watch: true, poll: 1 } },
    path: 'reload.poll',
    message: 'unknown field',
  },
  {
    name: 'camelCase field',
    raw: { auth: {}, rate_limit: { requestsPerMinute: 5 } },
    path: 'rate_limit.requestsPerMinute',
    message: 'unknown field (did you mean requests_per_minute?)',
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
    raw: { auth: {}, reload: { watch: 1 } },
    path: 'reload.watch',
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
    raw: { auth: {}, roles: [{ name: 5 }] },
    path: 'roles[0].name',
    message: 'must be a string, not a number',
  },
  {
    name: 'bool for a string',
    raw: { auth: {}, roles: [{ name: true }] },
    path: 'roles[0].name',
    message: 'must be a string, not a boolean',
  },
  {
    name: 'list for an object',
    raw: { auth: {}, reload: [] },
    path: 'reload',
    message: 'must be a mapping, not a list',
  },
  {
    name: 'string for an object',
    raw: { auth: {}, forward_auth: 'x' },
    path: 'forward_auth',
    message: 'must be a mapping, not a string',
  },
  { name: 'string auth', raw: { auth: 'jwt' }, path: 'auth', message: 'must be a mapping, not a string' },
  {
    name: 'null for a number',
    raw: { auth: {}, mcp: { endpoint: '/mcp', max_body_bytes: null } },
    path: 'mcp.max_body_bytes',
    message: 'must be a number, not null',
  },
  {
    name: 'null permission',
    raw: { auth: {}, roles: [{ name: 'a', permissions: [null] }] },
    path: 'roles[0].permissions[0]',
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
    name: 'cert_file without key_file',
    raw: { auth: {}, tls: { cert_file: 'c.pem' } },
    path: 'tls.key_file',
    message: 'cert_file and key_file go together',
  },
  {
    name: 'duplicate role',
    raw: { auth: {}, roles: [{ name: 'a' }, { name: 'b' }, { name: 'a' }] },
    path: 'roles[2].name',
    message: 'duplicate role "a"',
  },
  // URLs and names
  ...['ftp://api.example.com/', 'not a url'].map((url) => ({
    name: `resource.identifier ${url}`,
    raw: { auth: {}, resource: { identifier: url } },
    path: 'resource.identifier',
    message: 'must be an http(s) URL',
  })),
  {
    name: 'empty resource name',
    raw: { auth: {}, resource: { identifier: 'https://api.example.com', name: '' } },
    path: 'resource.name',
    message: 'must not be empty',
  },
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
      auth: { mode: 'jwr' },
      roles: [{ name: '' }],
      rate_limit: { requests_per_minute: 0 },
      reload: { watch: 1, extra: true },
    });
    expect(error.issues).toEqual([
      { path: 'auth.mode', message: 'must be one of: api_key, jwt, oauth2 (did you mean jwt?)' },
      { path: 'roles[0].name', message: 'must not be empty' },
      { path: 'rate_limit.requests_per_minute', message: 'must be at least 1' },
      { path: 'reload.watch', message: `${BOOL}, not a number` },
      { path: 'reload.extra', message: 'unknown field' },
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
    const raw = { auth: {}, roles: [{ name: 'a' }, { name: 'a' }], tls: { cert_file: 'c.pem' } };
    expect(configErrorOf(raw).issues.map((issue) => issue.path)).toEqual(['roles[1].name', 'tls.key_file']);
    const withField = { auth: {}, roles: [{ name: '' }], tls: { cert_file: 'c.pem' } };
    expect(configErrorOf(withField).issues.map((issue) => issue.path)).toEqual(['roles[0].name', 'tls.key_file']);
  });

  it('never echoes a refused value in the message', () => {
    const secret = 'sekrit-value-123';
    const error = configErrorOf({
      auth: {},
      resource: { identifier: `${secret} ` },
      rate_limit: { store: secret },
      forward_auth: { proxy: secret },
    });
    expect(error.issues).toHaveLength(3);
    expect(error.message).not.toContain(secret);
  });
});

describe('parseAuthConfig: the result', () => {
  it('is deeply frozen, the mode sections kept as written too', () => {
    const config = parseAuthConfig({
      auth: { mode: 'jwt', jwt: { ...jwks, claims: { roles: 'a.b' } } },
      roles: [{ name: 'admin', permissions: ['x'] }],
      resource: { identifier: 'https://api.example.com' },
    });
    const jwt = config.modeSections?.jwt as { claims: object };
    for (const part of [
      config,
      config.resource,
      config.forwardAuth.identityHeaders,
      config.roles,
      config.modeSections,
      jwt,
      jwt.claims,
    ]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(Object.isFrozen(config.roles[0])).toBe(true);
    expect(Object.isFrozen(config.roles[0]?.permissions)).toBe(true);
    expect(() => {
      (config.resource as { identifier: string }).identifier = 'https://other';
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
    expect(Object.isFrozen(raw.roles[0]?.permissions)).toBe(false);
    expect((config.modeSections?.jwt as { algorithms: unknown }).algorithms).not.toBe(raw.auth.jwt.algorithms);
    expect(config.roles[0]?.permissions).not.toBe(raw.roles[0]?.permissions);
  });

  it('serialises to plain JSON without the parsed marker', () => {
    const config = parseAuthConfig({ auth: {} });
    expect(Object.keys(config)).toEqual([
      'mode',
      'modes',
      'fallback',
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

  // Another copy of core recognises a parsed config by this registry key: it must never change.
  it('is the registered symbol authlayer.config', () => {
    expect((parsed as unknown as Record<symbol, unknown>)[Symbol.for('authlayer.config')]).toBe(true);
    expect(isParsedAuthConfig({ [Symbol.for('authlayer.config')]: true })).toBe(true);
    expect(isParsedAuthConfig({ [Symbol.for('authlayer.config.other')]: true })).toBe(false);
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
