import {
  ForbiddenError,
  isRequirableName,
  verifiedClaims,
  VARIABLE_REF,
  type AccessRule,
  type AuthContext,
  type ParamCondition,
} from '@authlayer/core';
import { readClaim } from '@authlayer/core/internal';

// What an MCP key's rule asks of the message itself: its `params` conditions, and the scopes a
// template key's rule forms with the message's values (`files:{tenant}:read`).

/**
 * The rule with each `{variable}` of its scopes replaced by the message's value; `null` when a
 * value is no scope-token (RFC 6749 §3.3: it could not stand in a challenge nor a token), which
 * the gate answers 400. The rule itself when it has no such scope.
 */
export function formScopes(rule: AccessRule, variables: Readonly<Record<string, string>>): AccessRule | null {
  if (!rule.scopes.some((scope) => scope.includes('{'))) return rule;
  const scopes: string[] = [];
  for (const scope of rule.scopes) {
    let bad = false;
    const formed = scope.replace(/\{([A-Za-z0-9_]{1,64})\}/g, (whole, variable: string) => {
      const value = Object.hasOwn(variables, variable) ? variables[variable] : undefined;
      if (value === undefined || !isRequirableName(value)) bad = true;
      return value ?? whole;
    });
    if (bad || !isRequirableName(formed)) return null;
    scopes.push(formed);
  }
  return { ...rule, scopes };
}

/**
 * 403 `param_mismatch` for the first condition of `rule.params` the message does not meet: its
 * value (at a dot path of `params`, or a template variable) is a JSON scalar that one of the
 * accepted values equals (type included), or that the caller's verified claim equals (a list
 * claim: contains). A missing value meets none. The message names the path, never a value.
 */
export function paramRefusal(
  rule: AccessRule,
  params: unknown,
  variables: Readonly<Record<string, string>>,
  context: AuthContext,
): ForbiddenError | null {
  if (rule.params === undefined) return null;
  for (const [path, condition] of Object.entries(rule.params)) {
    const variable = VARIABLE_REF.exec(path)?.[1];
    let value: unknown;
    if (variable === undefined) value = readPath(params, path);
    else value = Object.hasOwn(variables, variable) ? variables[variable] : undefined;
    if (!meets(value, condition, context)) return new ForbiddenError('param_mismatch', null, [path]);
  }
  return null;
}

function meets(value: unknown, condition: ParamCondition, context: AuthContext): boolean {
  if (!isScalar(value)) return false;
  if (Array.isArray(condition)) return (condition as readonly unknown[]).includes(value);
  const claims = verifiedClaims(context);
  const claim = claims === null ? undefined : readClaim(claims, (condition as { claim: string }).claim);
  if (value === null) return false;
  return Array.isArray(claim) ? claim.some((entry) => entry === value) : claim === value;
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

/** The value at a dot path of plain objects, own properties only (never a prototype's). */
function readPath(root: unknown, path: string): unknown {
  let value = root;
  for (const part of path.split('.')) {
    if (!isPlainObject(value) || !Object.hasOwn(value, part)) return undefined;
    value = value[part];
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
