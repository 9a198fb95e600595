import type { z } from 'zod';
import { shownInError } from './config-error.js';
import { knownFields, suggestField } from './suggest-field.js';

/** A broken rule as zod found it, worded for the user; the path not yet written out. */
export interface PathIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * The issues zod found in a value checked by `schema`, worded as authlayer words them everywhere
 * (`is required`, `must be a boolean (true or false), not a string`, `unknown field (did you mean
 * header?)`), one per path: `header: must not be empty` says it all. `schema` is where an unknown
 * field's neighbours are looked up.
 */
export function describeIssues(schema: z.core.$ZodType, issues: readonly z.core.$ZodIssue[]): PathIssue[] {
  const seen = new Set<string>();
  return issues
    .flatMap((issue) => toPathIssues(schema, issue))
    .filter((issue) => {
      const key = formatPath(issue.path);
      return !seen.has(key) && seen.add(key);
    });
}

function toPathIssues(schema: z.core.$ZodType, issue: z.core.$ZodIssue): PathIssue[] {
  if (issue.code === 'invalid_union') return unionIssues(schema, issue);
  // A bad key of a mapping (`access`): its own rule's message, at the key's path.
  if (issue.code === 'invalid_key')
    return issue.issues.flatMap((inner) => toPathIssues(schema, { ...inner, path: issue.path } as z.core.$ZodIssue));
  if (issue.code === 'unrecognized_keys') {
    const known = knownFields(schema, issue.path);
    return issue.keys.map((key) => {
      const suggestion = suggestField(key, known);
      const message = suggestion === undefined ? 'unknown field' : `unknown field (did you mean ${suggestion}?)`;
      return { path: [...issue.path, key], message };
    });
  }
  return [{ path: issue.path, message: describe(issue) }];
}

/**
 * A value that fits no alternative (`auth.mode`: a mode or a list of modes): report the issues of
 * the alternative that came closest, the one with the fewest and mildest issues at the value itself
 * (a list with one bad entry is a list; `[]` is a list that is too short; `oauth2` is a mode).
 */
function unionIssues(schema: z.core.$ZodType, issue: z.core.$ZodIssueInvalidUnion): PathIssue[] {
  // A value of none of the types (a claim value that is a mapping): name them all, not the first.
  const types = issue.errors.map((issues) => (issues.length === 1 ? typeMismatch(issues[0]) : null));
  if (types.length > 1 && types.every((expected) => expected !== null)) {
    const words = types.map((expected) => article(expected as string));
    const listed = `${words.slice(0, -1).join(', ')} or ${words.at(-1) as string}`;
    return [{ path: issue.path, message: `must be ${listed}, not ${typeName(issue.input)}` }];
  }
  // zod gives one list of issues per alternative, so there is always at least one.
  const closest = issue.errors.reduce((best, next) => (distance(next) < distance(best) ? next : best));
  return closest.flatMap((inner) =>
    toPathIssues(schema, { ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue),
  );
}

/** The type an issue expected, when it is a wrong type at the value itself. */
function typeMismatch(issue: z.core.$ZodIssue | undefined): string | null {
  return issue?.code === 'invalid_type' && issue.path.length === 0 && issue.input !== undefined ? issue.expected : null;
}

/** Issues at the value itself weigh most; a wrong type or value there more than a rule (too short). */
function distance(issues: readonly z.core.$ZodIssue[]): number {
  const atRoot = issues.filter((inner) => inner.path.length === 0);
  return (
    atRoot.length * 10 +
    atRoot.filter((inner) => inner.code === 'invalid_type' || inner.code === 'invalid_value').length
  );
}

function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${article(issue.expected)}, not ${typeName(issue.input)}`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map(String).join(', ')}`;
    default:
      return issue.message;
  }
}

const TYPE_WORDS: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean (true or false)',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

function article(expected: string): string {
  return TYPE_WORDS[expected] ?? expected;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value !== 'number' || Number.isInteger(value)) return `a ${typeof value}`;
  // YAML's .nan and .inf are numbers too, but calling them "a fraction" would mislead.
  return Number.isFinite(value) ? 'a fraction' : String(value);
}

/** `['roles', 0, 'name']` becomes `roles[0].name`; the root is `config`. A huge name is cut. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    // An unknown field's name comes from the file: never repeat a huge one.
    const shown = shownInError(String(part));
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? shown : `.${shown}`;
  }
  return out === '' ? 'config' : out;
}
