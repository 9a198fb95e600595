import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseAuthConfig } from '@authlayer/core';
import { createHash } from 'node:crypto';
import { apiKeysOf } from '../src/config/api-keys-section.js';
import { readExpectedKeys } from '../src/expected-keys.js';

// Start-up failures of `auth.api_keys.keys`: one issue per problem, each naming the field path
// and the variable, never a value.
const A = 'key-a-value-0001';
const B = 'key-b-value-0002';
const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');

const configOf = (keys: object[]) => apiKeysOf(parseAuthConfig({ auth: { api_keys: { keys } } }), {});

function issuesOf(keys: object[], env: Record<string, string>) {
  try {
    readExpectedKeys(configOf(keys), env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const { issues, message } = error as ConfigError;
    for (const value of [...Object.values(env), A, B, sha256(A), sha256(B)])
      if (value.length > 2) expect(message).not.toContain(value);
    expect(message).not.toContain('\n');
    return issues;
  }
  throw new Error('the keys were read');
}

describe('readExpectedKeys: start-up failures of keys', () => {
  it.each<[string, object[], Record<string, string>, { path: string; message: string }[]]>([
    [
      'an unset env_var',
      [{ name: 'a', env_var: 'A_KEY' }],
      {},
      [{ path: 'auth.api_keys.keys[0].env_var', message: 'environment variable A_KEY is unset or empty' }],
    ],
    [
      'an empty env_var',
      [{ name: 'a', env_var: 'A_KEY' }],
      { A_KEY: '' },
      [{ path: 'auth.api_keys.keys[0].env_var', message: 'environment variable A_KEY is unset or empty' }],
    ],
    [
      'a key with white space around it',
      [{ name: 'a', env_var: 'A_KEY' }],
      { A_KEY: ` ${A}` },
      [
        {
          path: 'auth.api_keys.keys[0].env_var',
          message: 'environment variable A_KEY starts or ends with white space',
        },
      ],
    ],
    [
      'a key with a control character',
      [{ name: 'a', env_var: 'A_KEY' }],
      { A_KEY: `${A}\u0001x` },
      [{ path: 'auth.api_keys.keys[0].env_var', message: 'environment variable A_KEY holds a control character' }],
    ],
    [
      'an unset hash_env',
      [{ name: 'a', hash_env: 'A_SHA' }],
      {},
      [{ path: 'auth.api_keys.keys[0].hash_env', message: 'environment variable A_SHA is unset or empty' }],
    ],
    ...[
      ['63 hex digits', sha256(A).slice(1)],
      ['65 hex digits', `${sha256(A)}0`],
      ['sha256sum output ("<hex>  -")', `${sha256(A)}  -`],
      ['a base64 digest', createHash('sha256').update(A).digest('base64')],
      ['the key itself', A],
      ['64 characters, not all hex', `${sha256(A).slice(0, 63)}g`],
    ].map(([name, value]): [string, object[], Record<string, string>, { path: string; message: string }[]] => [
      `a hash_env holding ${name}`,
      [{ name: 'a', hash_env: 'A_SHA' }],
      { A_SHA: value! },
      [
        {
          path: 'auth.api_keys.keys[0].hash_env',
          message: 'environment variable A_SHA must hold 64 hex digits (the SHA-256 of the key)',
        },
      ],
    ]),
    [
      'one key under two names',
      [
        { name: 'billing', env_var: 'A_KEY' },
        { name: 'reports', env_var: 'B_KEY' },
      ],
      { A_KEY: A, B_KEY: A },
      [
        {
          path: 'auth.api_keys.keys[1]',
          message: 'holds the same key as auth.api_keys.keys[0] ("billing" and "reports"); every key must be distinct',
        },
      ],
    ],
    [
      'one key under two names, once as a digest',
      [
        { name: 'billing', env_var: 'A_KEY' },
        { name: 'reports', hash_env: 'B_SHA' },
      ],
      { A_KEY: A, B_SHA: sha256(A).toUpperCase() },
      [
        {
          path: 'auth.api_keys.keys[1]',
          message: 'holds the same key as auth.api_keys.keys[0] ("billing" and "reports"); every key must be distinct',
        },
      ],
    ],
    [
      'one variable named by two entries',
      [
        { name: 'billing', env_var: 'A_KEY' },
        { name: 'reports', env_var: 'A_KEY' },
      ],
      { A_KEY: A },
      [
        {
          path: 'auth.api_keys.keys[1]',
          message: 'holds the same key as auth.api_keys.keys[0] ("billing" and "reports"); every key must be distinct',
        },
      ],
    ],
    [
      'one key twice for one name (a rotation that forgot the new key)',
      [
        { name: 'billing', env_var: 'A_KEY' },
        { name: 'billing', env_var: 'B_KEY' },
      ],
      { A_KEY: A, B_KEY: A },
      [
        {
          path: 'auth.api_keys.keys[1]',
          message: 'holds the same key as auth.api_keys.keys[0] ("billing" and "billing"); every key must be distinct',
        },
      ],
    ],
  ])('%s', (_name, keys, env, issues) => {
    expect(issuesOf(keys, env)).toEqual(issues);
  });

  it('reports every unset variable at once, by name, in one line', () => {
    const keys = [
      { name: 'a', env_var: 'A_KEY' },
      { name: 'b', hash_env: 'B_SHA' },
      { name: 'c', env_var: 'C_KEY' },
    ];
    expect(issuesOf(keys, { C_KEY: A })).toEqual([
      { path: 'auth.api_keys.keys[0].env_var', message: 'environment variable A_KEY is unset or empty' },
      { path: 'auth.api_keys.keys[1].hash_env', message: 'environment variable B_SHA is unset or empty' },
    ]);
  });
});

describe('readExpectedKeys: what it reads', () => {
  it('gives each entry its path, variable, client and the SHA-256 of its key', () => {
    const keys = readExpectedKeys(
      configOf([
        { name: 'a', env_var: 'A_KEY', roles: ['r'], tenant_id: 't', expires: '2027-01-01', created: '2026-01-01' },
        { name: 'b', hash_env: 'B_SHA' },
      ]),
      { A_KEY: A, B_SHA: sha256(B) },
    );
    expect(keys.map(({ sha256: digest, ...rest }) => ({ ...rest, sha256: digest.toString('hex') }))).toEqual([
      {
        path: 'auth.api_keys.keys[0]',
        variable: 'A_KEY',
        source: 'env_var',
        name: 'a',
        roles: ['r'],
        tenantId: 't',
        expires: '2027-01-01',
        created: '2026-01-01',
        sha256: sha256(A),
        checksummedPrefix: null,
        requestsPerMinute: null,
        quota: null,
      },
      {
        path: 'auth.api_keys.keys[1]',
        variable: 'B_SHA',
        source: 'hash_env',
        name: 'b',
        roles: [],
        tenantId: null,
        expires: null,
        created: null,
        sha256: sha256(B),
        checksummedPrefix: null,
        requestsPerMinute: null,
        quota: null,
      },
    ]);
  });

  it("reads the spec's single key without keys: the variable is the client", () => {
    const [key] = readExpectedKeys(apiKeysOf(parseAuthConfig({ auth: {} }), {}), { SERVICE_API_KEY: A });
    expect(key).toMatchObject({
      path: 'auth.api_keys.env_var',
      variable: 'SERVICE_API_KEY',
      name: 'SERVICE_API_KEY',
      roles: [],
      tenantId: null,
      expires: null,
    });
  });
});
