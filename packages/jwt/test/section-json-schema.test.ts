import { describe, expect, it } from '@jest/globals';
import { DEFAULTS } from '@authlayer/core';
import { sectionJsonSchema } from '@authlayer/core/internal';
import { readFileSync } from 'node:fs';
import { section, writtenSchema } from '../src/config/jwt-section.js';

// config.section.schema.json is committed (core's build reads it to complete `auth.jwt` in
// @authlayer/core/config.schema.json): it must be what this package's schema says now.
describe('config.section.schema.json', () => {
  it('is the JSON Schema of auth.jwt as the section schema reads it (run the build and commit it)', () => {
    const committed: unknown = JSON.parse(
      readFileSync(new URL('../config.section.schema.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(sectionJsonSchema(section, writtenSchema));
  });

  it('names the section and its fields with their defaults', () => {
    const { section: key, schema } = sectionJsonSchema(section, writtenSchema) as {
      section: string;
      schema: { properties: Record<string, object>; additionalProperties: unknown };
    };
    expect(key).toBe('jwt');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.algorithms).toMatchObject({ default: ['RS256'], minItems: 1 });
    expect(schema.properties.leeway_seconds).toMatchObject({
      default: 30,
      minimum: 0,
      maximum: DEFAULTS.leewayMaxSeconds,
    });
    expect(schema.properties.stale_keys_seconds).toMatchObject({
      default: 3600,
      maximum: DEFAULTS.staleKeysMaxSeconds,
    });
    expect(schema.properties.discovery).toMatchObject({ default: false, type: 'boolean' });
    expect(schema.properties.trust_roles).toMatchObject({ default: true, type: 'boolean' });
    expect(schema.properties.jwks_url).toMatchObject({ default: null });
  });
});
