#!/usr/bin/env node
// Build step of a mode package of this repository: writes config.section.schema.json (committed,
// and shipped) in the package's folder, the JSON Schema of its `auth` section, from the zod schema
// its `configSchema` checks with (`section` and `writtenSchema` of the built module named).
// Core's build puts each under `auth.properties` of config.schema.json (write-config-schema.mjs).
//
// usage (from the mode package's folder): node ../core/scripts/write-section-schema.mjs dist/config/<mode>-section.js
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { sectionJsonSchema } from '../dist/config/section-schema.js';

const { section, writtenSchema } = await import(pathToFileURL(resolve(process.argv[2])).href);
writeFileSync('config.section.schema.json', `${JSON.stringify(sectionJsonSchema(section, writtenSchema), null, 2)}\n`);
