import { describe, expect, it } from '@jest/globals';
import { sectionJsonSchema } from '@authlayer/core/internal';
import { readFileSync } from 'node:fs';
import { section, writtenSchema } from '../src/config/api-keys-section.js';

// config.section.schema.json is committed (core's build reads it to complete `auth.api_keys` in
// @authlayer/core/config.schema.json): it must be what this package's schema says now.
describe('config.section.schema.json', () => {
  it('is the JSON Schema of auth.api_keys as the section schema reads it (run the build and commit it)', () => {
    const committed: unknown = JSON.parse(
      readFileSync(new URL('../config.section.schema.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(sectionJsonSchema(section, writtenSchema));
  });

  it('names the section and its fields with their defaults', () => {
    const { section: key, schema } = sectionJsonSchema(section, writtenSchema) as {
      section: string;
      schema: { properties: Record<string, object> };
    };
    expect(key).toBe('api_keys');
    expect(schema.properties.header).toMatchObject({ default: 'X-API-Key', maxLength: 64 });
    expect(schema.properties.allow_bearer).toMatchObject({ default: true });
  });
});
