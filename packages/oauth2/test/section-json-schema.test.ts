import { describe, expect, it } from '@jest/globals';
import { sectionJsonSchema } from '@authlayer/core/internal';
import { readFileSync } from 'node:fs';
import { section, writtenSchema } from '../src/config/oauth2-section.js';

// config.section.schema.json is committed (core's build reads it to complete `auth.oauth2` in
// @authlayer/core/config.schema.json): it must be what this package's schema says now.
describe('config.section.schema.json', () => {
  it('is the JSON Schema of auth.oauth2 as the section schema reads it (run the build and commit it)', () => {
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
    expect(key).toBe('oauth2');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.client_secret_env).toMatchObject({ default: 'OAUTH2_CLIENT_SECRET' });
    expect(schema.properties.auth_method).toMatchObject({ default: 'client_secret_basic' });
    expect(schema.properties.cache_seconds).toMatchObject({ default: 60, minimum: 0, maximum: 3600 });
    expect(schema.properties.timeout_ms).toMatchObject({ default: 5000, minimum: 1, maximum: 60000 });
    expect(schema.properties.discovery).toMatchObject({ default: false, type: 'boolean' });
    expect(schema.properties.introspection_url).toMatchObject({ default: null });
  });
});
