import { parseMcpKey, type AccessValue } from '@authlayer/core';

/** One `"MCP <method> <name>"` entry of the `access` table. */
export interface McpEntry {
  readonly key: string;
  readonly value: AccessValue;
}

/** The MCP keys of one JSON-RPC method. */
interface MethodEntries {
  /** `"MCP <method>"`: every message of the method. */
  readonly all: McpEntry[];
  /** `"MCP <method> <name>"`, by name. */
  readonly named: Map<string, McpEntry[]>;
  /** `"MCP <method> *"`: the names no other key of the method names. */
  readonly other: McpEntry[];
}

/** The MCP keys of the `access` table, by method. */
export type McpTable = ReadonlyMap<string, MethodEntries>;

/** The MCP keys of `access` (route keys are the access table's, see `compileTable`). */
export function compileMcpTable(access: Readonly<Record<string, AccessValue>>): McpTable {
  const table = new Map<string, MethodEntries>();
  for (const [key, value] of Object.entries(access)) {
    const parsed = parseMcpKey(key);
    if (parsed === null) continue;
    let method = table.get(parsed.method);
    if (method === undefined) {
      method = { all: [], named: new Map(), other: [] };
      table.set(parsed.method, method);
    }
    const entry = { key, value };
    if (parsed.name === null) method.all.push(entry);
    else if (parsed.name === '*') method.other.push(entry);
    else method.named.set(parsed.name, [...(method.named.get(parsed.name) ?? []), entry]);
  }
  return table;
}

/**
 * The entries that apply to a message of `method` about `name` (`null`: the message names none):
 * the method's own keys, and those of the name, or the method's `*` when no key names it. Every
 * one must hold.
 */
export function mcpEntriesFor(table: McpTable, method: string, name: string | null): readonly McpEntry[] {
  const entries = table.get(method);
  if (entries === undefined) return NONE;
  const named = name === null ? undefined : entries.named.get(name);
  const byName = named ?? entries.other;
  if (entries.all.length === 0) return byName;
  return byName.length === 0 ? entries.all : [...entries.all, ...byName];
}

const NONE: readonly McpEntry[] = Object.freeze([]);
