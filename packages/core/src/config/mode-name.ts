import { z } from 'zod';
import { AUTH_MODES, type AuthMode, type KnownAuthMode } from './defaults.js';
import { suggestField } from './suggest-field.js';

/**
 * A mode package's name as `auth.mode` writes it: a lower-case name (`hmac`, the package
 * `@authlayer/hmac`) or a scoped package name (`@acme/authlayer-hmac`, that package), as npm
 * spells package names.
 */
const MODE_NAME = /^(?:[a-z][a-z0-9_-]{0,63}|@[a-z0-9][a-z0-9._-]{0,63}\/[a-z0-9][a-z0-9._-]{0,99})$/;

/** True for one of the modes of this repository ({@link AUTH_MODES}). */
export function isKnownAuthMode(mode: unknown): mode is KnownAuthMode {
  return typeof mode === 'string' && (AUTH_MODES as readonly string[]).includes(mode);
}

/** True for a name `auth.mode` takes as a mode package outside this repository. */
export function isExternalModeName(mode: unknown): mode is string {
  return typeof mode === 'string' && modeNameIssue(mode) === undefined && !isKnownAuthMode(mode);
}

/**
 * What is wrong with an entry of `auth.mode`, or undefined when it names a mode. A near miss of a
 * known mode (`jwr`, `api-key`, `API_KEY`) is refused with the mode it most likely means, never
 * taken for a package of that name.
 */
export function modeNameIssue(mode: unknown): string | undefined {
  if (isKnownAuthMode(mode)) return undefined;
  const oneOf = `must be one of: ${AUTH_MODES.join(', ')}`;
  if (typeof mode !== 'string') return oneOf;
  const typo = suggestField(mode.replaceAll('-', '_'), AUTH_MODES);
  if (typo !== undefined) return `${oneOf} (did you mean ${typo}?)`;
  if (!MODE_NAME.test(mode)) return `${oneOf}, or a mode package's name (lower case: letters, digits, _ and -)`;
  return undefined;
}

/**
 * The `auth` key a mode package outside this repository reads by default: the mode's name, without
 * a package scope (`hmac` and `@acme/hmac` both read `auth.hmac`). A package says otherwise with its
 * `section` export.
 */
export function defaultSectionKey(mode: string): string {
  return mode.slice(mode.lastIndexOf('/') + 1);
}

/**
 * One entry of `auth.mode` (or of a rule's `modes`): see {@link modeNameIssue}. Built on `unknown`
 * (a custom type has no JSON Schema); editors are shown a string of a mode package's name shape, the
 * known modes as examples (a near miss such as `jwr` is refused at start-up only).
 */
export const modeSchema = z
  .unknown()
  .refine((mode) => modeNameIssue(mode) === undefined, { error: (issue) => modeNameIssue(issue.input) })
  .meta({ type: 'string', pattern: MODE_NAME.source, examples: [...AUTH_MODES] }) as unknown as z.ZodType<
  AuthMode,
  AuthMode
>;
