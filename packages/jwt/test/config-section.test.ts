import { describe, expect, it } from '@jest/globals';
import { JWT_ALGORITHMS, parseAuthConfig } from '@authlayer/core';
import { jwtOf, section } from '../src/config/jwt-section.js';
import { checkedSection, configErrorOf, issuesOf, sectionIssuesOf, settingsOf } from './config-of.js';

// `auth.jwt`: its fields, defaults and error lines, checked by this package (core keeps the section
// as written). Every line below is the one core gave before the section moved here.

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

// jwt beside another mode: only the rules that hold whether or not jwt is listed apply.
const jwt = (fields: Record<string, unknown>) => ({ auth: { mode: 'api_key', jwt: fields } });
const jwks = { jwks_url: 'https://idp.example.com/.well-known/jwks.json' };
const ONE_OF_ALGS = 'must be one of: RS256, RS384, RS512, ES256, ES384, ES512, HS256, HS384, HS512';
const BOOL = 'must be a boolean (true or false)';

describe('auth.jwt: defaults', () => {
  it('fills every default of a section not written, and of one with only jwks_url', () => {
    expect(section).toBe('jwt');
    expect(checkedSection(undefined)).toEqual(DEFAULT_JWT);
    expect(settingsOf({ auth: { mode: 'jwt', jwt: jwks } })).toEqual({ ...DEFAULT_JWT, jwksUrl: jwks.jwks_url });
  });

  it('converts every snake_case field once to camelCase', () => {
    const raw = {
      auth: {
        mode: 'jwt',
        api_keys: { env_var: 'K' },
        jwt: {
          public_key_env: 'JWT_PEM',
          issuer: 'https://idp',
          audience: 'api',
          algorithms: ['ES256', 'ES256', 'HS256'],
          leeway_seconds: 0,
          claims: { user_id: 'uid', tenant_id: 'org.id', scopes: 'scp' },
        },
      },
    };
    expect(settingsOf(raw)).toEqual({
      ...DEFAULT_JWT,
      publicKeyEnv: 'JWT_PEM',
      issuer: 'https://idp',
      audience: 'api',
      algorithms: ['ES256', 'HS256'],
      leewaySeconds: 0,
      claims: { ...DEFAULT_CLAIMS, userId: 'uid', tenantId: 'org.id', scopes: 'scp' },
    });
  });

  it('takes deps.section, as the engine checked it, over the config', () => {
    const checked = { ...DEFAULT_JWT, jwksUrl: 'https://from-engine/jwks' };
    const config = parseAuthConfig({ auth: { mode: 'jwt', jwt: { jwks_url: 'https://written/jwks' } } });
    expect(jwtOf(config, { section: checked as never })).toEqual(checked);
  });

  it('takes claims: null as every default claim', () => {
    expect(checkedSection({ claims: null }).claims).toEqual(DEFAULT_CLAIMS);
  });

  it('accepts dot paths for claims', () => {
    const claims = { roles: 'realm_access.roles', tenant_id: 'org.tenant.id', user_id: 'a-b:c' };
    expect(checkedSection({ claims }).claims).toEqual({
      ...DEFAULT_CLAIMS,
      roles: 'realm_access.roles',
      tenantId: 'org.tenant.id',
      userId: 'a-b:c',
    });
  });
});

describe('auth.jwt: accepted boundaries', () => {
  it.each([0, 1, 300, 300.0])('accepts leeway_seconds %p', (leeway) => {
    expect(checkedSection({ leeway_seconds: leeway }).leewaySeconds).toBe(leeway);
  });

  it.each(JWT_ALGORITHMS.filter((alg) => !alg.startsWith('HS')))('accepts %s with a jwks_url', (alg) => {
    expect(settingsOf({ auth: { mode: 'jwt', jwt: { ...jwks, algorithms: [alg] } } }).algorithms).toEqual([alg]);
  });

  it.each([...JWT_ALGORITHMS])('accepts %s with public_key_env', (alg) => {
    const settings = settingsOf({ auth: { mode: 'jwt', jwt: { public_key_env: 'KEY', algorithms: [alg] } } });
    expect(settings.algorithms).toEqual([alg]);
  });

  it.each(['http://127.0.0.1:8080/jwks', 'https://idp.example.com/jwks'])('accepts jwks_url %s', (url) => {
    expect(settingsOf(jwt({ jwks_url: url })).jwksUrl).toBe(url);
  });
});

interface RefusedCase {
  name: string;
  raw: { auth: { mode?: unknown; jwt?: unknown } };
  path: string;
  message: string;
}

const refused: RefusedCase[] = [
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
  // unknown fields
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
  // wrong types
  {
    name: 'number for a bool',
    raw: jwt({ discovery: 1 }),
    path: 'auth.jwt.discovery',
    message: `${BOOL}, not a number`,
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
  // cross-field rules
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

describe('auth.jwt: refused sections', () => {
  it.each(refused)('$name → $path, by the handler and by the loader alike', ({ raw, path, message }) => {
    const error = configErrorOf(raw);
    expect(error.issues).toEqual([{ path, message }]);
    expect(error.path).toBe(path);
    expect(error.message).toBe(`${path}: ${message}`);
    expect(sectionIssuesOf(raw.auth.jwt)).toEqual([{ path, message }]);
  });

  it('needs a key source when jwt authenticates, and only then', () => {
    expect(issuesOf({ auth: { mode: 'jwt' } })).toEqual([
      { path: 'auth.jwt', message: 'jwt mode needs jwks_url, public_key_env, public_key_file, discovery or providers' },
    ]);
    // A list of modes: the handler is asked for only when jwt is listed; it needs a key source then.
    expect(issuesOf({ auth: { mode: ['api_key', 'jwt'] } })).toEqual([
      { path: 'auth.jwt', message: 'jwt mode needs jwks_url, public_key_env, public_key_file, discovery or providers' },
    ]);
    // Beside another mode, the loader checks the fields and the rules that always hold: no source is needed.
    expect(checkedSection({ leeway_seconds: 5 }).leewaySeconds).toBe(5);
  });

  it('reports several issues at once, in order, on one line', () => {
    const error = configErrorOf({
      auth: { mode: 'jwt', jwt: { issuer: '', leeway_seconds: 301, discovery: 1, extra: true } },
    });
    expect(error.issues).toEqual([
      { path: 'auth.jwt.issuer', message: 'must not be empty' },
      { path: 'auth.jwt.leeway_seconds', message: 'must be 0 to 300' },
      { path: 'auth.jwt.discovery', message: `${BOOL}, not a number` },
      { path: 'auth.jwt.extra', message: 'unknown field' },
    ]);
    expect(error.message).toBe(error.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '));
    expect(error.message).not.toContain('\n');
  });

  it('reports the cross-field rules together', () => {
    const raw = { auth: { mode: 'jwt', jwt: { ...jwks, public_key_env: 'P', algorithms: ['HS384'] } } };
    expect(issuesOf(raw).map((issue) => issue.path)).toEqual(['auth.jwt', 'auth.jwt.algorithms']);
  });

  it('never echoes a refused value in the message', () => {
    const secret = 'sekrit-value-123';
    const error = configErrorOf(jwt({ jwks_url: `${secret} `, public_key_env: `${secret}-`, discovery: secret }));
    expect(error.issues).toHaveLength(3);
    expect(error.message).not.toContain(secret);
  });

  // What moving the section out of core into this package keeps: the same line for the same mistake.
  it.each([
    [
      { leeway_seconds: 301, algorithms: ['none'] },
      [
        { path: 'auth.jwt.algorithms[0]', message: ONE_OF_ALGS },
        { path: 'auth.jwt.leeway_seconds', message: 'must be 0 to 300' },
      ],
    ],
    [
      { leway_seconds: 3, jwks_url: 'ftp://x' },
      [
        { path: 'auth.jwt.jwks_url', message: 'must be an http or https URL' },
        { path: 'auth.jwt.leway_seconds', message: 'unknown field (did you mean leeway_seconds?)' },
      ],
    ],
  ])('gives the lines core gave (%#)', (written, lines) => {
    expect(sectionIssuesOf(written)).toEqual(lines);
    expect(issuesOf({ auth: { mode: 'jwt', jwt: written } })).toEqual(lines);
  });
});

describe('auth.jwt: the result', () => {
  it('is deeply frozen', () => {
    const settings = settingsOf({ auth: { mode: 'jwt', jwt: { ...jwks, claims: { roles: 'a.b' } } } });
    for (const part of [settings, settings.algorithms, settings.claims, settings.providers]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (settings as { issuer: string | null }).issuer = 'https://other';
    }).toThrow(TypeError);
  });

  it('does not share or change the raw input', () => {
    const raw = { auth: { mode: 'jwt', jwt: { ...jwks, algorithms: ['RS256'] } } };
    const before = structuredClone(raw);
    const settings = settingsOf(raw);
    expect(raw).toEqual(before);
    expect(Object.isFrozen(raw.auth.jwt.algorithms)).toBe(false);
    expect(settings.algorithms).not.toBe(raw.auth.jwt.algorithms);
  });
});

describe('auth.jwt: hostile or careless input', () => {
  const huge = 'A'.repeat(1_000_000);

  it('refuses a huge public_key_env without repeating it, and cuts a huge unknown field name', () => {
    expect(configErrorOf({ auth: { mode: 'jwt', jwt: { public_key_env: huge } } }).message).toBe(
      'auth.jwt.public_key_env: must be at most 128 characters',
    );
    expect(configErrorOf({ auth: { jwt: { [huge]: 1 } } }).message).toBe(
      `auth.jwt.${'A'.repeat(64)}...: unknown field`,
    );
  });

  it.each([
    'https://user:hunter2@idp.example.com/jwks',
    'https://user@idp.example.com/jwks',
    'http://:hunter2@127.0.0.1/jwks',
  ])('refuses user info in jwks_url at start-up: %s', (url) => {
    const error = configErrorOf({ auth: { mode: 'jwt', jwt: { jwks_url: url } } });
    expect(error.message).toBe('auth.jwt.jwks_url: must not hold a user name or password (fetch refuses such URLs)');
    expect(error.message).not.toContain('hunter2');
  });

  it.each([
    [{ jwks_uri: 'https://x' }, 'auth.jwt.jwks_uri: unknown field (did you mean jwks_url?)'],
    [{ claims: { user: 'sub' } }, 'auth.jwt.claims.user: unknown field'],
    [{ claims: { userid: 'sub' } }, 'auth.jwt.claims.userid: unknown field (did you mean user_id?)'],
  ])('suggests the known field closest to an unknown one: %j', (written, message) => {
    expect(configErrorOf({ auth: { jwt: written } }).message).toBe(message);
  });
});
