#!/usr/bin/env node
// Build step: writes dist/config.schema.json, the JSON Schema of the config file, from the one
// zod schema (`configSchema`) that parseAuthConfig uses, so the two are never written twice.
// Runs after tsc (it imports the compiled schema). Shipped as `@authlayer/core/config.schema.json`.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { ACCESS_KEY_NAMES } from '../dist/config/access-schema.js';
import { configSchema } from '../dist/config/config-schema.js';

// `io: 'input'`: the file as a user writes it, where every field with a default is optional.
// draft-07 is the draft that yaml-language-server and most editors understand best.
const generated = z.toJSONSchema(configSchema, { io: 'input', target: 'draft-7', unrepresentable: 'throw' });
// zod cannot say which keys a mapping with a catch-all may have: the access keys' rule, added here.
generated.properties.access.propertyNames = ACCESS_KEY_NAMES;
// A mode package outside this repository brings its own section (`auth.hmac` for `mode: hmac`) and
// checks it at start-up: the editor takes any mapping there (a misspelt section is still refused
// at start-up, as an unknown field).
generated.properties.auth.additionalProperties = {
  type: 'object',
  description: 'the section of a mode package that auth.mode names (checked by that package at start-up)',
};
// The mode packages' sections (core names none): each package of the repository that has a
// config.section.schema.json (its build writes it; committed) gives `auth.<section>`.
const packages = new URL('../../', import.meta.url);
for (const name of readdirSync(packages).sort()) {
  const file = new URL(`${name}/config.section.schema.json`, packages);
  if (!existsSync(file)) continue;
  const { section, schema } = JSON.parse(readFileSync(file, 'utf8'));
  generated.properties.auth.properties[section] = schema;
}
const { $schema, ...rest } = generated;
const schema = {
  $schema,
  title: 'authlayer config file',
  description:
    'The config file of authlayer (auth section and top-level roles, access, rate_limit and metrics). Generated from configSchema in ' +
    '@authlayer/core, with the sections of the mode packages beside it; rules spanning several fields are checked at start-up.',
  ...rest,
};
const target = new URL('../dist/config.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
