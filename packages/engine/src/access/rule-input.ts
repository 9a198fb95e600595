import { isRequirableName, type AccessRequirement, type AccessRule } from '@authlayer/core';
import type { Held } from './rules.js';

// A rule object given by hand to a guard (`requireAccess`), or a parsed config's, checked whole as
// the config's schema checks a rule: a typo is a TypeError at start-up, never an open route.

/** A rule object as `requireAccess` takes it: a parsed config's, or by hand with lists left out. */
export interface AccessRuleInput extends Partial<AccessRequirement> {
  readonly any?: readonly Partial<AccessRequirement>[];
  readonly modes?: null;
  readonly tenantParam?: null;
}

const ENTRY_FIELDS = new Set(['permissions', 'scopes', 'roles', 'claims', 'acr', 'maxAge']);
const RULE_FIELDS = new Set([...ENTRY_FIELDS, 'any', 'modes', 'tenantParam']);
// The YAML's spelling of a field, for the message when a rule by hand uses it.
const CAMEL: Readonly<Record<string, string>> = { max_age: 'maxAge', tenant_param: 'tenantParam' };

/**
 * A rule object for `requireAccess`, checked whole: a mistyped key is a TypeError at start-up,
 * never an open route. `fn` names the caller in the message.
 */
export function toRule(rule: unknown, fn = 'requireAccess(rule)'): AccessRule {
  const fail = (why: string): never => {
    throw new TypeError(`${fn}: ${why}`);
  };
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
    return fail(`needs a rule object of the access table, not ${describeValue(rule)} (a mistyped key?)`);
  }
  const candidate = rule as Record<string, unknown>;
  const unknown = Object.keys(candidate).find((field) => !RULE_FIELDS.has(field));
  if (unknown !== undefined) {
    const hint = Object.hasOwn(CAMEL, unknown) ? ` (a parsed rule spells it ${CAMEL[unknown]})` : '';
    fail(`unknown field ${unknown.slice(0, 40)}${hint}`);
  }
  if ((candidate.modes ?? null) !== null || (candidate.tenantParam ?? null) !== null) {
    fail('modes and tenant_param need auth.access, which knows the route');
  }
  const requirement = toRequirement(candidate, fail);
  const any = candidate.any ?? [];
  if (!Array.isArray(any)) return fail('any must be a list');
  const entries = any.map((entry: unknown) => {
    if (typeof entry !== 'object' || entry === null) return fail('an entry of any must be an object');
    const field = Object.keys(entry).find((name) => !ENTRY_FIELDS.has(name));
    if (field !== undefined)
      fail(`an entry of any lists only ${[...ENTRY_FIELDS].join(', ')}, not ${field.slice(0, 40)}`);
    return toRequirement(entry as Record<string, unknown>, fail);
  });
  if (!asksSomething(requirement) && entries.length === 0) fail('the rule requires nothing');
  if (!entries.every(asksSomething)) fail('an entry of any requires nothing');
  return Object.freeze({ ...requirement, any: Object.freeze(entries), modes: null, tenantParam: null });
}

function asksSomething(r: AccessRequirement): boolean {
  const lists = r.permissions.length + r.scopes.length + r.roles.length;
  return lists > 0 || r.claims !== undefined || r.acr !== undefined || r.maxAge !== undefined;
}

function toRequirement(candidate: Record<string, unknown>, fail: (why: string) => never): AccessRequirement {
  const list = (held: Held): readonly string[] => {
    const names = candidate[held] ?? [];
    if (!Array.isArray(names) || !names.every(isRequirableName)) {
      fail(`${held} must be a list of names of printable ASCII without space, " or \\`);
    }
    return Object.freeze([...new Set(names as string[])]);
  };
  const { claims, acr, maxAge } = candidate;
  return Object.freeze({
    permissions: list('permissions'),
    scopes: list('scopes'),
    roles: list('roles'),
    // As the config's: present only when given.
    ...(claims === undefined ? {} : { claims: toClaims(claims, fail) }),
    ...(acr === undefined ? {} : { acr: toAcr(acr, fail) }),
    ...(maxAge === undefined ? {} : { maxAge: toMaxAge(maxAge, fail) }),
  });
}

/** `{ "<claim name or dot path>": [values] }`, each list non-empty, of strings, numbers, booleans. */
function toClaims(claims: unknown, fail: (why: string) => never): AccessRequirement['claims'] {
  const shape = 'claims must map claim names or dot paths to non-empty lists of strings, numbers or booleans';
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return fail(shape);
  const entries = Object.entries(claims as Record<string, unknown>);
  if (entries.length === 0) fail('claims must name at least one claim');
  const scalar = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);
  for (const [path, values] of entries) {
    if (!isRequirableName(path)) fail('a claim path must be printable ASCII without space, " or \\');
    if (!Array.isArray(values) || values.length === 0 || !values.every(scalar)) fail(shape);
  }
  // A copy made of own entries: a frozen object of plain data, whatever the caller keeps changing.
  return Object.freeze(Object.fromEntries(entries.map(([path, values]) => [path, Object.freeze([...(values as [])])])));
}

function toAcr(acr: unknown, fail: (why: string) => never): readonly string[] {
  if (!Array.isArray(acr) || acr.length === 0 || !acr.every(isRequirableName)) {
    fail('acr must be a non-empty list of values of printable ASCII without space, " or \\');
  }
  return Object.freeze([...new Set(acr as string[])]);
}

function toMaxAge(maxAge: unknown, fail: (why: string) => never): number {
  if (!Number.isSafeInteger(maxAge) || (maxAge as number) < 0)
    fail('maxAge must be a whole number of seconds, 0 or more');
  return maxAge as number;
}

function describeValue(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  return typeof value === 'string'
    ? `the word "${value.slice(0, 20)}"`
    : `a ${Array.isArray(value) ? 'list' : typeof value}`;
}
