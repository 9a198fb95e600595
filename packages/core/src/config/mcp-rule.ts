import { z } from 'zod';
import { compileMcpName } from './mcp-name.js';

// The parts of an `access` rule that only an `"MCP <method> <name>"` key can use: `params`
// (conditions on the message), and the `{variable}`s of a template key in its scopes.

/** A value a `params` list accepts: a JSON scalar, compared exactly, type included. */
export type ParamValue = string | number | boolean | null;

/**
 * A `params` condition: the message's value is one of a list, or equals a verified claim of the
 * caller (`{ claim: "tenant_id" }`; a list claim: contains it).
 */
export type ParamCondition = readonly ParamValue[] | { readonly claim: string };

// Names an object has of its own in JavaScript: a path through them could reach a prototype.
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);
// Printable ASCII without space, `"` or `\` (it stands in a 403's message), 1 to 256 characters.
const PATH = /^[\x21\x23-\x5b\x5d-\x7e]{1,256}$/;
/** `{tenant}` (or `{+path}`): a template variable of the key. */
export const VARIABLE_REF = /^\{\+?([A-Za-z0-9_]{1,64})\}$/;

const paramPath = z
  .string()
  .regex(PATH, 'must be a dot path into params (arguments.mode) or a template variable ({tenant})')
  .refine(
    (path) => VARIABLE_REF.test(path) || path.split('.').every((part) => part !== '' && !FORBIDDEN_SEGMENTS.has(part)),
    'must be a dot path of non-empty names, none of them __proto__, constructor or prototype',
  );
const paramCondition = z.union([
  z
    .array(z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .min(1, 'must be a non-empty list of accepted values, or { claim: <name> }'),
  z.strictObject({
    claim: z.string().regex(PATH, 'must be a claim name or dot path of printable ASCII without space, " or \\'),
  }),
]);

/** `params`: a dot path into the message's `params`, or a template variable → its condition. */
export const paramsSchema = z
  .record(paramPath, paramCondition)
  .refine((params) => Object.keys(params).length > 0, 'must name at least one parameter')
  .optional();

/** A problem of one key's rule, at a path below the key. */
export interface McpRuleIssue {
  readonly path: (string | number)[];
  readonly message: string;
}

/**
 * What a rule may name of its key: every `{variable}` of `params` and of `scopes` is a variable of
 * the key's template (a key without one has none), and the template itself is well formed.
 */
export function mcpRuleIssues(
  name: string | null,
  rule: { scopes: readonly string[]; params?: Readonly<Record<string, unknown>> | undefined },
): McpRuleIssue[] {
  let variables: readonly string[] = [];
  if (name !== null && name !== '*') {
    try {
      variables = compileMcpName(name).variables;
    } catch (error) {
      return [{ path: [], message: (error as Error).message }];
    }
  }
  const known = variables.length === 0 ? 'the key has none' : `the key has ${variables.join(', ')}`;
  const issues: McpRuleIssue[] = [];
  for (const path of Object.keys(rule.params ?? {})) {
    const variable = VARIABLE_REF.exec(path)?.[1];
    if (variable !== undefined && !variables.includes(variable)) {
      issues.push({ path: ['params', path], message: `${variable} is not a variable of the key (${known})` });
    }
  }
  rule.scopes.forEach((scope, index) => {
    for (const variable of scopeVariables(scope)) {
      if (!variables.includes(variable)) {
        issues.push({ path: ['scopes', index], message: `${variable} is not a variable of the key (${known})` });
      }
    }
  });
  return issues;
}

/** The `{variable}`s a scope of an MCP key's rule names (`files:{tenant}:read` → `tenant`). */
export function scopeVariables(scope: string): string[] {
  return [...scope.matchAll(/\{([A-Za-z0-9_]{1,64})\}/g)].map((found) => found[1] as string);
}
