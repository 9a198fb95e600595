import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ConfigError } from '../src/config/config-error.js';
import { envVarName } from '../src/config/fields.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';
import {
  assertSectionRules,
  modeSectionOf,
  sectionJsonSchema,
  sectionPathOf,
  sectionSchema,
  type SectionSchemaIssue,
} from '../src/config/section-schema.js';

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

  it('gives a read-only value, deeply: a handler cannot change what another reads', () => {
    const result = hmac['~standard'].validate({ secret_env: 'S', keys: [{ name: 'a' }] }) as {
      value: { keys: { name: string }[] };
    };
    const { value } = result;
    for (const part of [value, value.keys, value.keys[0]]) expect(Object.isFrozen(part)).toBe(true);
    expect(() => {
      (value.keys[0] as { name: string }).name = 'b';
    }).toThrow(TypeError);
  });
});

describe('sectionPathOf', () => {
  it('writes a path inside a section as core writes a config path', () => {
    expect(sectionPathOf('api_keys', ['keys', 0, 'env_var'])).toBe('auth.api_keys.keys[0].env_var');
    expect(sectionPathOf('hmac', [])).toBe('auth.hmac');
  });
});

describe('assertSectionRules', () => {
  it("throws a section's broken rules as one ConfigError at auth.<key>.<path>, and nothing for none", () => {
    expect(() => assertSectionRules('hmac', [])).not.toThrow();
    const thrown = (() => {
      try {
        assertSectionRules('hmac', [
          { path: ['keys', 0, 'secret_env'], message: 'is required' },
          { path: [], message: 'needs a key' },
        ]);
      } catch (error) {
        return error as ConfigError;
      }
      return null;
    })();
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(thrown?.issues).toEqual([
      { path: 'auth.hmac.keys[0].secret_env', message: 'is required' },
      { path: 'auth.hmac', message: 'needs a key' },
    ]);
  });
});

describe('modeSectionOf', () => {
  const config = (hmacSection?: unknown) =>
    parseAuthConfig({ auth: { mode: 'api_key', ...(hmacSection === undefined ? {} : { hmac: hmacSection }) } });
  function issuesThrown(run: () => unknown) {
    try {
      run();
    } catch (error) {
      if (error instanceof ConfigError) return error.issues;
      throw error;
    }
    throw new Error('accepted');
  }

  it('checks config.modeSections[key] with the schema when the engine gave no section', () => {
    expect(modeSectionOf(config({ secret_env: 'S' }), {}, 'hmac', hmac)).toEqual({
      secret_env: 'S',
      header: 'X-Signature',
    });
  });

  it('takes deps.section as the engine checked it, without checking it again', () => {
    const section = { secret_env: 'FROM_ENGINE', header: 'X' };
    expect(modeSectionOf(config({ secret_env: 5 }), { section }, 'hmac', hmac)).toBe(section);
  });

  // Was assertModeConfig: a mode handed a config made for another mode names what it lacks.
  it('names each issue at auth.<key>.<path>, also for a config made for another mode', () => {
    // No section written (a config made for api_key): the schema is given `undefined`.
    expect(issuesThrown(() => modeSectionOf(config(), {}, 'hmac', hmac))).toEqual([
      { path: 'auth.hmac', message: 'is required' },
    ]);
    expect(issuesThrown(() => modeSectionOf(config({ keys: [{}] }), {}, 'hmac', hmac))).toEqual([
      { path: 'auth.hmac.secret_env', message: 'is required' },
      { path: 'auth.hmac.keys[0].name', message: 'is required' },
    ]);
  });
});

describe('sectionJsonSchema', () => {
  it('gives the section as written (draft-07, defaults optional), without $schema', () => {
    const schema = z.strictObject({ secret_env: envVarName, header: z.string().default('X-Signature') });
    const { section, schema: json } = sectionJsonSchema('hmac', schema);
    expect(section).toBe('hmac');
    expect(json).not.toHaveProperty('$schema');
    expect(json).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['secret_env'],
      properties: {
        secret_env: { type: 'string', maxLength: 128 },
        header: { type: 'string', default: 'X-Signature' },
      },
    });
  });

  it('refuses what JSON Schema cannot say, rather than leave it out', () => {
    expect(() => sectionJsonSchema('hmac', z.strictObject({ at: z.date() }))).toThrow();
  });
});
