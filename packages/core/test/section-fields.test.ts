import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { claimPath, envVarName, filePath, intRange, keySetUrl, redisUrl, text } from '../src/config/fields.js';
import { sectionSchema, type SectionSchema, type SectionSchemaIssue } from '../src/config/section-schema.js';
import { claimsSchema, toClaimsConfig } from '../src/config/sections/claims.js';
import { senderConstraintFields, toSenderConstraintConfig } from '../src/config/sections/sender-constraint.js';

// The pieces a mode package builds its section from (`@authlayer/core/internal`): the field
// builders, `claims` and the sender-constraint fields, each with the line core words for it.
// `auth.jwt` and `auth.oauth2` prove them again through their own sections.

function valueOf<Output>(schema: SectionSchema<Output>, value: unknown): Output {
  const result = schema['~standard'].validate(value);
  if (result.issues !== undefined) throw new Error(`refused: ${JSON.stringify(result.issues)}`);
  return result.value;
}

function linesOf(schema: SectionSchema<unknown>, value: unknown): string[] {
  const result = schema['~standard'].validate(value) as { issues?: readonly SectionSchemaIssue[] };
  if (result.issues === undefined) throw new Error('accepted');
  return result.issues.map(({ path, message }) => `${path.join('.')}: ${message}`);
}

describe('the field builders', () => {
  const fields = sectionSchema(
    z.strictObject({
      name: text.optional(),
      env: envVarName.optional(),
      claim: claimPath.optional(),
      url: keySetUrl.optional(),
      seconds: intRange(0, 300).optional(),
      store: redisUrl.optional(),
      file: filePath.optional(),
    }),
  );

  it('take what they are for', () => {
    const value = {
      name: 'a',
      env: '_KEY_1',
      claim: 'realm_access.roles',
      url: 'http://127.0.0.1:8080/jwks',
      seconds: 300,
      store: 'rediss://r:6380/1',
      file: 'rel/p.pem',
    };
    expect(valueOf(fields, value)).toEqual(value);
  });

  it.each([
    [{ name: '' }, 'name: must not be empty'],
    [{ env: 'A-B' }, 'env: must be an environment variable name (letters, digits, _)'],
    [{ env: 'A'.repeat(1_000_000) }, 'env: must be at most 128 characters'],
    [{ claim: 'a..b' }, 'claim: must be a claim name or a dot path such as realm_access.roles'],
    [{ url: 'ftp://x/y' }, 'url: must be an http or https URL'],
    [
      { url: 'https://user:hunter2@idp.example.com/jwks' },
      'url: must not hold a user name or password (fetch refuses such URLs)',
    ],
    [{ seconds: 301 }, 'seconds: must be 0 to 300'],
    [{ seconds: -1 }, 'seconds: must be 0 to 300'],
    [{ seconds: 1.5 }, 'seconds: must be an integer, not a fraction'],
    [{ store: 'memory' }, 'store: must be a redis:// (or rediss://) URL'],
    [{ store: 'redis://[' }, 'store: must be a redis:// (or rediss://) URL'],
    [{ file: '' }, 'file: must not be empty'],
    [{ file: 'a\0b' }, 'file: must be a file path'],
    [{ file: 'p'.repeat(4097) }, 'file: must be at most 4096 characters'],
  ])('refuse %#, naming the field without its value', (value, line) => {
    const lines = linesOf(fields, value);
    expect(lines).toEqual([line]);
    expect(lines.join()).not.toContain('hunter2');
  });
});

describe('claims', () => {
  const claims = sectionSchema(claimsSchema.nullable().transform(toClaimsConfig));
  const DEFAULT_CLAIMS = {
    userId: 'sub',
    email: 'email',
    name: 'name',
    roles: 'roles',
    permissions: 'permissions',
    scopes: 'scope',
    tenantId: null,
  };

  it('takes null (or nothing written) as every default claim, and dot paths', () => {
    expect(valueOf(claims, null)).toEqual(DEFAULT_CLAIMS);
    expect(valueOf(claims, {})).toEqual(DEFAULT_CLAIMS);
    expect(valueOf(claims, { roles: 'realm_access.roles', tenant_id: 'org.tenant.id', user_id: 'a-b:c' })).toEqual({
      ...DEFAULT_CLAIMS,
      roles: 'realm_access.roles',
      tenantId: 'org.tenant.id',
      userId: 'a-b:c',
    });
    expect(Object.isFrozen(valueOf(claims, null))).toBe(true);
  });

  it.each([
    [{ sub: 'x' }, 'sub: unknown field'],
    [{ user: 'sub' }, 'user: unknown field'],
    [{ userid: 'sub' }, 'userid: unknown field (did you mean user_id?)'],
    [{ email: null }, 'email: must be a string, not null'],
    [{ roles: '.roles' }, 'roles: must be a claim name or a dot path such as realm_access.roles'],
  ])('refuses %j', (value, line) => {
    expect(linesOf(claims, value)).toEqual([line]);
  });
});

describe('the sender-constraint fields', () => {
  const constraint = sectionSchema(z.strictObject(senderConstraintFields).transform(toSenderConstraintConfig));

  it('default to off, and read dpop_algorithms without repeats', () => {
    expect(valueOf(constraint, {})).toEqual({
      dpop: 'off',
      dpopAlgorithms: ['ES256', 'RS256', 'PS256', 'EdDSA', 'Ed25519'],
      certificateBound: 'off',
    });
    expect(
      valueOf(constraint, {
        dpop: 'required',
        dpop_algorithms: ['ES256', 'ES256', 'PS256'],
        certificate_bound: 'allowed',
      }),
    ).toEqual({ dpop: 'required', dpopAlgorithms: ['ES256', 'PS256'], certificateBound: 'allowed' });
  });

  it.each([
    [{ dpop: 'yes' }, 'dpop: must be one of: off, allowed, required'],
    [
      { dpop_algorithms: ['HS256'] },
      'dpop_algorithms.0: must be one of: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519',
    ],
    [{ dpop_algorithms: [] }, 'dpop_algorithms: must list at least one algorithm'],
    [{ certificate_bound: true }, 'certificate_bound: must be one of: off, allowed, required'],
  ])('refuse %j', (value, line) => {
    expect(linesOf(constraint, value)).toEqual([line]);
  });
});
