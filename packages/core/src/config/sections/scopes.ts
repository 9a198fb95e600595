import { z } from 'zod';
import { isRequirableName } from '../../forbidden-error.js';
import type { SectionIssue } from '../fields.js';

// The top-level `scopes` section: scope hierarchies (MCP's authorization specification: "Servers
// MUST account for scope hierarchies, where a broader scope implies narrower ones").

export const scopesSchema = z
  .strictObject({
    implies: z.record(z.string(), z.array(z.string())).default({}),
  })
  .nullable()
  .default(null);

/** `scopes`, with `implies` closed under transitivity once, at config load. */
export interface ScopesConfig {
  /** Each scope that implies others → every scope it grants besides itself, transitively. */
  readonly implies: Readonly<Record<string, readonly string[]>>;
}

/**
 * The names `implies` breaks: a name that is no RFC 6749 scope-token, or a cycle (`a` implies `b`
 * implies `a`), each at its path.
 */
export function scopesIssues(raw: z.output<typeof scopesSchema>): SectionIssue[] {
  if (raw === null) return [];
  const issues: SectionIssue[] = [];
  for (const [broad, narrower] of Object.entries(raw.implies)) {
    if (!isRequirableName(broad)) issues.push({ path: ['scopes', 'implies', broad], message: NOT_A_SCOPE });
    narrower.forEach((name, index) => {
      if (!isRequirableName(name)) issues.push({ path: ['scopes', 'implies', broad, index], message: NOT_A_SCOPE });
    });
  }
  if (issues.length > 0) return issues;
  const cycle = findCycle(raw.implies);
  if (cycle === null) return [];
  return [{ path: ['scopes', 'implies', cycle[0]!], message: `is part of a cycle: ${cycle.join(' implies ')}` }];
}

const NOT_A_SCOPE = 'must be a scope (1 to 128 printable ASCII characters without space, " or \\)';

/** `scopes` in camelCase, its `implies` closed (each scope → all it grants, itself left out). */
export function toScopesConfig(raw: z.output<typeof scopesSchema>): ScopesConfig {
  const implies: Record<string, readonly string[]> = {};
  for (const broad of Object.keys(raw?.implies ?? {})) {
    const granted = new Set<string>();
    const stack = [...(raw?.implies[broad] ?? [])];
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (name === broad || granted.has(name)) continue;
      granted.add(name);
      stack.push(...(raw?.implies[name] ?? []));
    }
    implies[broad] = [...granted];
  }
  return { implies };
}

/** The first cycle of `implies` as the names on it (`[a, b, a]`), or null without one. */
function findCycle(implies: Readonly<Record<string, readonly string[]>>): string[] | null {
  const done = new Set<string>();
  const visit = (name: string, path: string[]): string[] | null => {
    const at = path.indexOf(name);
    if (at !== -1) return [...path.slice(at), name];
    if (done.has(name)) return null;
    for (const next of implies[name] ?? []) {
      const cycle = visit(next, [...path, name]);
      if (cycle !== null) return cycle;
    }
    done.add(name);
    return null;
  };
  for (const name of Object.keys(implies)) {
    const cycle = visit(name, []);
    if (cycle !== null) return cycle;
  }
  return null;
}

/**
 * The scopes `held` grants: each one and every scope it implies (see {@link ScopesConfig}). The
 * list itself when nothing is implied.
 */
export function grantedScopes(held: readonly string[], implies: ScopesConfig['implies']): ReadonlySet<string> {
  const granted = new Set(held);
  for (const name of held) {
    if (Object.hasOwn(implies, name)) for (const implied of implies[name]!) granted.add(implied);
  }
  return granted;
}
