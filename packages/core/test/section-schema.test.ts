import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ConfigError } from '../src/config/config-error.js';
import { envVarName } from '../src/config/fields.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';
import { sectionSchema, type SectionSchemaIssue } from '../src/config/section-schema.js';
import { jwtSchema } from '../src/config/sections/jwt.js';
import { oauth2Schema } from '../src/config/sections/oauth2.js';

// A section as a mode package writes it with zod (the shape of the hmac fixture's).
const hmac = sectionSchema(
  z.strictObject({
    secret_env: envVarName,
    header: z.string().min(1, 'must not be empty').default('X-Signature'),
    keys: z.array(z.strictObject({ name: z.string() })).optional(),
  }),
);

function issuesOf(schema: { '~standard': { validate(value: unknown): unknown } }, value: unknown) {
  const result = schema['~standard'].validate(value) as { issues?: readonly SectionSchemaIssue[] };
  if (result.issues === undefined) throw new Error('the section was accepted');
  return result.issues;
}

/** What the engine's loader writes for an issue of `auth.<key>` (load-mode.ts `sectionPath`). */
function loaderPath(key: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : `${out}.${String(part)}`),
    `auth.${key}`,
  );
}

function parseIssues(raw: unknown): { path: string; message: string }[] {
  try {
    parseAuthConfig(raw);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return [...error.issues];
  }
  throw new Error('parseAuthConfig accepted the config');
}

describe('sectionSchema', () => {
  it('is a Standard Schema (v1) whose value is the section with its defaults', () => {
    expect(hmac['~standard']).toMatchObject({ version: 1, vendor: 'authlayer' });
    expect(hmac['~standard'].validate({ secret_env: 'HMAC_SECRET' })).toEqual({
      value: { secret_env: 'HMAC_SECRET', header: 'X-Signature' },
    });
  });

  it('words each issue as core does, at its path inside the section', () => {
    expect(issuesOf(hmac, { header: 7, keys: [{ name: 'a' }, {}] })).toEqual([
      { path: ['secret_env'], message: 'is required' },
      { path: ['header'], message: 'must be a string, not a number' },
      { path: ['keys', 1, 'name'], message: 'is required' },
    ]);
    expect(issuesOf(hmac, 'HMAC_SECRET')).toEqual([{ path: [], message: 'must be a mapping, not a string' }]);
  });

  it('names an unknown field with the likely one, and cuts a huge name', () => {
    const huge = 'x'.repeat(100);
    expect(issuesOf(hmac, { secret_env: 'S', headre: 'X', [huge]: 1 })).toEqual([
      { path: ['headre'], message: 'unknown field (did you mean header?)' },
      { path: [`${'x'.repeat(64)}...`], message: 'unknown field' },
    ]);
  });

  it('reports one issue per field', () => {
    const twice = sectionSchema(z.strictObject({ name: z.string().min(3, 'too short').regex(/^a/, 'starts with a') }));
    expect(issuesOf(twice, { name: 'b' })).toEqual([{ path: ['name'], message: 'too short' }]);
  });

  // What moving a section out of core into its mode package keeps: the same line for the same mistake
  // (auth.api_keys, moved already, is proven in @authlayer/api-key against the lines core gave).
  it.each([
    ['jwt', jwtSchema, { leeway_seconds: 301, algorithms: ['none'] }],
    ['jwt', jwtSchema, { leway_seconds: 3, jwks_url: 'ftp://x' }],
    ['oauth2', oauth2Schema, { auth_method: 'private_key_jwt', cache_seconds: 3601 }],
  ] as const)('gives auth.%s the lines parseAuthConfig gives it (%#)', (key, schema, section) => {
    const issues = issuesOf(sectionSchema(schema), section).map(({ path, message }) => ({
      path: loaderPath(key, path),
      message,
    }));
    expect(issues).toEqual(parseIssues({ auth: { mode: key, [key]: section } }));
  });
});
