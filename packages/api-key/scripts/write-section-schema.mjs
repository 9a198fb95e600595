#!/usr/bin/env node
// Build step: writes config.section.schema.json (committed, and shipped), the JSON Schema of this
// mode's `auth` section, from the zod schema its `configSchema` checks with. @authlayer/core's
// build puts it under `auth.properties` of core's config.schema.json, so an editor completes
// `auth.api_keys` although core names no mode; a test fails when the committed file is stale.
import { writeFileSync } from 'node:fs';
import { sectionJsonSchema } from '../dist/config/api-keys-section.js';

const target = new URL('../config.section.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(sectionJsonSchema(), null, 2)}\n`);
