import { z } from 'zod';
import type { AuthConfig } from './auth-config.js';
import { ConfigError, shownInError } from './config-error.js';
import { describeIssues } from './config-issues.js';
import { deepFreeze } from './deep-freeze.js';
import type { SectionIssue } from './fields.js';

/** One issue of a {@link SectionSchema}: what is wrong, at a path inside the section. */
export interface SectionSchemaIssue {
  readonly message: string;
  readonly path: readonly PropertyKey[];
}

/**
 * A mode package's `configSchema` as the engine's loader takes it: a Standard Schema
 * (https://standardschema.dev, v1) whose value is the handler's `deps.section`.
 */
export interface SectionSchema<Output> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(
      value: unknown,
    ): { readonly value: Output; readonly issues?: undefined } | { readonly issues: readonly SectionSchemaIssue[] };
  };
}

/**
 * A mode package's section written with zod, as its `configSchema` export: checked when the engine
 * loads the package, each issue worded as core words the config's own (`is required`, `must be a
 * boolean (true or false), not a string`, `unknown field (did you mean header?)`), one per field,
 * a huge unknown field's name cut. A zod schema is a Standard Schema by itself, but words its
 * issues its own way (`Invalid input: expected boolean, received string`).
 *
 * @example
 * export const section = 'hmac';
 * export const configSchema = sectionSchema(z.strictObject({ secret_env: z.string() }));
 */
export function sectionSchema<Schema extends z.ZodType>(schema: Schema): SectionSchema<z.output<Schema>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'authlayer',
      validate(value) {
        const result = schema.safeParse(value, { reportInput: true });
        // Read-only, as the config it belongs to: a handler cannot change what another reads.
        if (result.success) return { value: deepFreeze(result.data) };
        const issues = describeIssues(schema, result.error.issues).map(({ path, message }) => ({
          message,
          path: path.map((part) => (typeof part === 'string' ? shownInError(part) : part)),
        }));
        return { issues };
      },
    },
  };
}

/**
 * A mode's section as its handler takes it: `deps.section` as the engine's loader checked it, or,
 * for a program that calls the mode's `createHandler` itself, `config.modeSections[key]` checked
 * here by the same schema, with the same lines.
 *
 * @throws ConfigError naming every issue at `auth.<key>.<path>`
 */
export function modeSectionOf<Output>(
  config: AuthConfig,
  deps: { readonly section?: unknown },
  key: string,
  schema: SectionSchema<Output>,
): Output {
  if (deps.section !== undefined) return deps.section as Output;
  const result = schema['~standard'].validate(config.modeSections?.[key]);
  if (result.issues === undefined) return result.value;
  throw new ConfigError(result.issues.map(({ path, message }) => ({ path: sectionPathOf(key, path), message })));
}

/**
 * Throws the rules a mode's section broke (paths inside the section) as one ConfigError at
 * `auth.<key>.<path>`; nothing when none is broken.
 */
export function assertSectionRules(key: string, issues: readonly SectionIssue[]): void {
  if (issues.length > 0)
    throw new ConfigError(issues.map(({ path, message }) => ({ path: sectionPathOf(key, path), message })));
}

/** `auth.api_keys.keys[0].env_var`: a path inside the section `key`, as core writes a config path. */
export function sectionPathOf(key: string, path: readonly PropertyKey[]): string {
  let out = `auth.${key}`;
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return out;
}

/**
 * A mode section's JSON Schema for editors, `{ section, schema }` (draft-07, the section as
 * written: fields with a default are optional): what a mode package's `config.section.schema.json`
 * holds, and what core's build puts under `auth.properties` of `config.schema.json`.
 */
export function sectionJsonSchema(section: string, schema: z.ZodType): { section: string; schema: object } {
  const { $schema: _draft, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-7',
    unrepresentable: 'throw',
  });
  return { section, schema: rest };
}
