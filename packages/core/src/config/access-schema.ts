import { z } from 'zod';

// --- Authorization (issue 8): the `access` section, `auth.fallback`, `auth.mode` as a list. ---

// RFC 6749 §3.3 scope-token, as `isRequirableName` in forbidden-error.ts: safe in a challenge.
const NAME = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;
/** `"METHOD /path"`: an upper-case HTTP method, one space, a path starting with `/`. */
const ROUTE = /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \/[\x21-\x7e]*$/;

const names = z
  .array(z.string().regex(NAME, 'must be 1 to 128 characters of printable ASCII without space, " or \\'))
  .default([]);

/** One `access` entry: every name listed is needed. */
const accessRuleSchema = z
  .strictObject({ permissions: names, scopes: names, roles: names })
  .refine((rule) => rule.permissions.length + rule.scopes.length + rule.roles.length > 0, {
    message: 'must list permissions, scopes or roles',
  });

/** The top-level `access` section: `"METHOD /path"` → what the caller needs. */
export const accessSchema = z
  .record(z.string().regex(ROUTE, 'must be "METHOD /path", for example "POST /invoke"'), accessRuleSchema)
  .default({});

/** `auth.fallback`: what a missing mode package means. */
export const FALLBACKS = ['no_auth', 'refuse'] as const;
export type Fallback = (typeof FALLBACKS)[number];
export const fallbackSchema = z.enum(FALLBACKS).default('no_auth');
