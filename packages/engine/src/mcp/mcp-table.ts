import { compileMcpName, parseMcpKey, type AccessValue, type McpNamePattern } from '@authlayer/core';

/** One `"MCP <method> <name>"` entry of the `access` table. */
export interface McpEntry {
  readonly key: string;
  readonly value: AccessValue;
}

/** An entry that applies to a message: its template variables' values (`{}` for other keys). */
export interface AppliedEntry extends McpEntry {
  readonly variables: Readonly<Record<string, string>>;
}

/** A key whose name is a pattern (`admin_*`) or a template (`files://{tenant}/{path}`). */
interface PatternEntry extends McpEntry {
  readonly pattern: McpNamePattern;
}

/** The MCP keys of one JSON-RPC method. */
interface MethodEntries {
  /** `"MCP <method>"`: every message of the method. */
  readonly all: AppliedEntry[];
  /** `"MCP <method> <name>"`, by name. */
  readonly named: Map<string, AppliedEntry[]>;
  /** Prefix and template keys, in the table's order. */
  readonly patterns: PatternEntry[];
  /** `"MCP <method> *"`: the names no other key of the method names. */
  readonly other: AppliedEntry[];
}

/** The MCP keys of the `access` table, by method. */
export type McpTable = ReadonlyMap<string, MethodEntries>;

const NO_VARIABLES: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The MCP keys of `access` (route keys are the access table's, see `compileTable`).
 *
 * @throws Error for a malformed template (the config's parser has refused it already)
 */
export function compileMcpTable(access: Readonly<Record<string, AccessValue>>): McpTable {
  const table = new Map<string, MethodEntries>();
  for (const [key, value] of Object.entries(access)) {
    const parsed = parseMcpKey(key);
    if (parsed === null) continue;
    let method = table.get(parsed.method);
    if (method === undefined) {
      method = { all: [], named: new Map(), patterns: [], other: [] };
      table.set(parsed.method, method);
    }
    const entry = { key, value, variables: NO_VARIABLES };
    if (parsed.name === null) method.all.push(entry);
    else if (parsed.name === '*') method.other.push(entry);
    else {
      const pattern = compileMcpName(parsed.name);
      if (pattern.kind === 'exact') method.named.set(parsed.name, [...(method.named.get(parsed.name) ?? []), entry]);
      else method.patterns.push({ key, value, pattern });
    }
  }
  return table;
}

/**
 * The entries that apply to a message of `method` about `name` (`null`: the message names none):
 * the method's own keys, and those whose name, prefix or template matches it, or the method's `*`
 * when none does. Every one must hold.
 */
export function mcpEntriesFor(table: McpTable, method: string, name: string | null): readonly AppliedEntry[] {
  const entries = table.get(method);
  if (entries === undefined) return NONE;
  const byName = name === null ? [] : [...(entries.named.get(name) ?? []), ...matchingPatterns(entries, name)];
  const chosen = byName.length === 0 ? entries.other : byName;
  if (entries.all.length === 0) return chosen;
  return chosen.length === 0 ? entries.all : [...entries.all, ...chosen];
}

function matchingPatterns(entries: MethodEntries, name: string): AppliedEntry[] {
  const found: AppliedEntry[] = [];
  for (const { key, value, pattern } of entries.patterns) {
    const variables = pattern.match(name);
    if (variables !== null) found.push({ key, value, variables });
  }
  return found;
}

const NONE: readonly AppliedEntry[] = Object.freeze([]);
