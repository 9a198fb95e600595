import {
  compileRouteKey,
  isMcpKey,
  RoutePatternError,
  type AccessDefault,
  type AccessRule,
  type AccessValue,
  type AuthMode,
  type CompiledRoute,
  type RouteParams,
} from '@authlayer/core';
import { PlanMemo } from './plan-memo.js';

/** One `access` entry, compiled: the route it names and what it asks. */
export interface TableEntry {
  readonly route: CompiledRoute;
  readonly value: AccessValue;
}

/** An entry that matched a request, with that request's route parameters. */
export interface MatchedEntry {
  readonly entry: TableEntry;
  /** The decoded parameters, or `null` when a parameter's percent-encoding is broken. */
  readonly params: RouteParams | null;
}

/** What the entries that match a request ask, together (every one applies). */
export interface Plan {
  /** `none`: no authentication; `optional`: anonymous allowed; `required`: a caller must authenticate. */
  readonly authentication: 'none' | 'optional' | 'required';
  /** A `deny` matched (or no entry did, under `default: deny`): 403 `route_denied`. */
  readonly denied: boolean;
  /** The key of the `deny` that matched, `default` for `default: deny`; `null` when not denied. */
  readonly deniedBy: string | null;
  /**
   * The key whose entry asks for a caller (the first of the strongest `authentication`; `default`
   * when no entry matched): what a 401 of authentication names. `null` when none asks (`public`).
   */
  readonly askedBy: string | null;
  /** The modes every matched rule allows; `null`: any configured mode. */
  readonly modes: readonly AuthMode[] | null;
  /** The rule objects to check once the caller is known, with the parameters they matched. */
  readonly rules: readonly {
    readonly rule: AccessRule;
    readonly params: RouteParams | null;
    /** The entry's key (`GET /reports/:id`): what a refusal's log line names. */
    readonly key: string;
  }[];
}

const STRENGTH = { none: 0, optional: 1, required: 2 } as const;

/** The `access` table: its entries in order, and an index of them by a path's first segment. */
export interface AccessTable {
  readonly entries: readonly TableEntry[];
  /** By first segment (lower case): the entries that fix it to that, and those that fix none, in order. */
  readonly bySegment: ReadonlyMap<string, readonly TableEntry[]>;
  /** The entries that fix no first segment: all a path of another first segment may match. */
  readonly unfixed: readonly TableEntry[];
  /**
   * The keys whose pattern Express cannot parse (`GET /files/*`, a Fastify wildcard), with why: they
   * match no path here. The Express adapter refuses a table that has any; Fastify names routes by
   * their URL and needs no parse.
   */
  readonly unparsed: readonly { readonly key: string; readonly message: string }[];
  /** The plans already made for requests to this table (see `planOf`). */
  readonly plans: PlanMemo<Plan>;
}

/**
 * The `access` table's route keys, ready to answer which entries match a request. Each key is matched as a
 * route registered with Express 5's defaults would be (see `compileRouteKey`), and a `GET` entry
 * matches `HEAD` too, as Express routes HEAD to GET.
 */
export function compileTable(access: Readonly<Record<string, AccessValue>>): AccessTable {
  const unparsed: { key: string; message: string }[] = [];
  // `"MCP <method> <name>"` keys judge the messages POSTed to `mcp.endpoint`, not routes (see mcp/).
  const entries = Object.entries(access)
    .filter(([key]) => !isMcpKey(key))
    .map(([key, value]) => {
      try {
        return { route: compileRouteKey(key), value };
      } catch (error) {
        if (!(error instanceof RoutePatternError)) throw error;
        unparsed.push({ key, message: error.message });
        return { route: unmatchable(key), value };
      }
    });
  const segments = new Set(entries.flatMap((entry) => entry.route.firstSegment ?? []));
  const bySegment = new Map(
    [...segments].map((segment) => [
      segment,
      entries.filter((entry) => entry.route.firstSegment === null || entry.route.firstSegment === segment),
    ]),
  );
  const unfixed = entries.filter((entry) => entry.route.firstSegment === null);
  return { entries, bySegment, unfixed, unparsed, plans: new PlanMemo<Plan>() };
}

/** A key whose pattern Express cannot parse, as an entry that matches no path (see `unparsed`). */
function unmatchable(key: string): CompiledRoute {
  const space = key.indexOf(' ');
  return Object.freeze({
    key,
    method: key.slice(0, space),
    pattern: key.slice(space + 1),
    params: [],
    examples: [],
    // A segment no path has: the entry stays out of every other segment's list.
    firstSegment: '\u0000unparsed',
    matchPath: () => false,
  });
}

/**
 * A path's first segment, lower case: what a pattern's `firstSegment` is compared with. Full
 * Unicode lower case may turn a non-ASCII letter into an ASCII one, which only adds candidates
 * (each is still matched); a path a pattern matches has an ASCII first segment, lowered the same.
 */
function firstSegmentOf(path: string): string {
  if (path.charCodeAt(0) !== 47) return '';
  const slash = path.indexOf('/', 1);
  return (slash === -1 ? path.slice(1) : path.slice(1, slash)).toLowerCase();
}

/** The entries of `table` that match `method` and `path`. */
export function matchEntries(table: AccessTable, method: string, path: string): MatchedEntry[] {
  const matched: MatchedEntry[] = [];
  for (const entry of table.bySegment.get(firstSegmentOf(path)) ?? table.unfixed) {
    const { route } = entry;
    if (route.method !== '*' && route.method !== method && !(method === 'HEAD' && route.method === 'GET')) continue;
    let params: RouteParams | false | null;
    try {
      params = route.matchPath(path);
    } catch {
      // A broken percent-encoding: Express answers 400 before any handler runs. The entry still
      // applies (fail closed), with no parameter a tenant could match.
      params = null;
    }
    if (params !== false) matched.push({ entry, params });
  }
  return matched;
}

/**
 * Combines what every matched entry asks. Overlapping entries fail closed: the strongest
 * authentication wins, every rule object applies, and `modes` narrow to what every rule allows.
 * With no entry, `fallback` (`access.default`) decides.
 */
export function planFor(matched: readonly MatchedEntry[], fallback: AccessDefault): Plan {
  if (matched.length === 0) {
    return fallback === 'deny' ? DENIED : AUTHENTICATED;
  }
  let authentication: Plan['authentication'] = 'none';
  let deniedBy: string | null = null;
  let askedBy: string | null = null;
  let modes: readonly AuthMode[] | null = null;
  const rules: Plan['rules'][number][] = [];
  const need = (what: Plan['authentication'], key: string) => {
    if (STRENGTH[what] <= STRENGTH[authentication]) return;
    authentication = what;
    askedBy = key;
  };
  for (const { entry, params } of matched) {
    const { value } = entry;
    if (value === 'deny') deniedBy ??= entry.route.key;
    else if (value === 'optional') need('optional', entry.route.key);
    else if (value === 'authenticated') need('required', entry.route.key);
    else if (typeof value === 'object') {
      need('required', entry.route.key);
      rules.push({ rule: value, params, key: entry.route.key });
      if (value.modes !== null) {
        const allowed = value.modes;
        modes = modes === null ? allowed : modes.filter((mode) => allowed.includes(mode));
      }
    }
  }
  return { authentication, denied: deniedBy !== null, deniedBy, askedBy, modes, rules };
}

const DENIED: Plan = Object.freeze({
  authentication: 'none',
  denied: true,
  deniedBy: 'default',
  // Under report_only a denied request is still authenticated, optionally: `default` asked.
  askedBy: 'default',
  modes: null,
  rules: [],
});
const AUTHENTICATED: Plan = Object.freeze({
  authentication: 'required',
  denied: false,
  deniedBy: null,
  askedBy: 'default',
  modes: null,
  rules: [],
});
