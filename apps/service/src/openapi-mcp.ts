import {
  compileMcpName,
  parseMcpKey,
  type AccessRequirement,
  type AccessValue,
  type AuthConfig,
} from '@authlayer/core';

/** One MCP key of the table as `/openapi.json` describes it. */
export interface McpKeyDocument {
  readonly key: string;
  readonly method: string;
  /** `method`: every message of the method; `default`: `*`; else how the name matches. */
  readonly match: 'method' | 'default' | 'exact' | 'prefix' | 'template';
  /** A template's variables, in order. */
  readonly variables?: readonly string[];
  /** The key's word (`deny`, `authenticated`, ...), or what its rule asks. */
  readonly rule: string | RuleDocument;
}

/** What a rule asks: scopes, roles and permissions by name; claims and `params` by path only. */
interface RuleDocument {
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly permissions: readonly string[];
  readonly claims: readonly string[];
  readonly params: readonly string[];
  readonly any: number;
}

/**
 * The `x-authlayer-mcp` extension of `/openapi.json` (`undefined` without an `mcp` section): the
 * endpoint, `filter_lists`, and each MCP key with how its name matches (exact, prefix pattern,
 * RFC 6570 template and its variables) and what its rule asks. The accepted values of claims and
 * `params` are policy, not for a public document: they are named by path only, as a 403's
 * description names claims.
 */
export function mcpDocument(config: AuthConfig): Record<string, unknown> | undefined {
  if (config.mcp === null) return undefined;
  const keys: McpKeyDocument[] = [];
  for (const [key, value] of Object.entries(config.access)) {
    const parsed = parseMcpKey(key);
    if (parsed === null) continue;
    keys.push({ key, method: parsed.method, ...matchOf(parsed.name), rule: ruleOf(value) });
  }
  return { endpoint: config.mcp.endpoint, filter_lists: config.mcp.filterLists === true, keys };
}

function matchOf(name: string | null): Pick<McpKeyDocument, 'match' | 'variables'> {
  if (name === null) return { match: 'method' };
  if (name === '*') return { match: 'default' };
  const { kind, variables } = compileMcpName(name);
  return kind === 'template' ? { match: kind, variables } : { match: kind };
}

function ruleOf(value: AccessValue): string | RuleDocument {
  if (typeof value === 'string') return value;
  const named = (requirement: AccessRequirement) => ({
    scopes: requirement.scopes,
    roles: requirement.roles,
    permissions: requirement.permissions,
    claims: Object.keys(requirement.claims ?? {}),
  });
  return { ...named(value), params: Object.keys(value.params ?? {}), any: value.any.length };
}
