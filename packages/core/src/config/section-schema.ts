import type { z } from 'zod';
import { shownInError } from './config-error.js';
import { describeIssues } from './config-issues.js';

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
        if (result.success) return { value: result.data };
        const issues = describeIssues(schema, result.error.issues).map(({ path, message }) => ({
          message,
          path: path.map((part) => (typeof part === 'string' ? shownInError(part) : part)),
        }));
        return { issues };
      },
    },
  };
}
