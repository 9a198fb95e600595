import { match, parse, PathError, type Token } from 'path-to-regexp';
import { z } from 'zod';
import type { AuthMode } from './defaults.js';
import { isMcpKey, MCP_KEY, parseMcpKey } from './mcp-key.js';
import { mcpRuleIssues, paramsSchema, type ParamCondition } from './mcp-rule.js';
import { modeSchema } from './mode-name.js';
import { suggestField } from './suggest-field.js';

// The `access` section (the app's whole policy: route patterns → who may call them), `auth.fallback`,
// and the route patterns, parsed by the library Express 5's router matches routes with.

// RFC 6749 §3.3 scope-token, as `isRequirableName` in forbidden-error.ts: safe in a challenge.
const NAME = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;
/** `"METHOD /pattern"`: an upper-case method or `*`, one space, a pattern of printable ASCII (`/...`, or `{/...}`). */
const ROUTE = /^([A-Z]{1,20}|\*) ([/{][\x21-\x7e]*)$/;
/** What the JSON Schema can say of a key of `access`: `default`, `report_only`, `log`, `"METHOD /pattern"` or `"MCP <method> <name>"`. */
export const ACCESS_KEY_NAMES = {
  anyOf: [
    { enum: ['default', 'report_only', 'log', 'tests', 'candidate'] },
    { pattern: ROUTE.source },
    { pattern: MCP_KEY.source },
  ],
} as const;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', '*']);
const PARAM = /^[A-Za-z_$][\w$]{0,63}$/;

/** What a route needs, as a word: no authentication, anonymous allowed, any caller, nobody. */
export const ACCESS_WORDS = ['public', 'optional', 'authenticated', 'deny'] as const;
/**
 * One of {@link ACCESS_WORDS}.
 * @useDeclaredType
 */
export type AccessWord = (typeof ACCESS_WORDS)[number];

/** `access.default`: what a request that no rule matches needs. */
export const ACCESS_DEFAULTS = ['authenticated', 'deny'] as const;
/**
 * One of {@link ACCESS_DEFAULTS}.
 * @useDeclaredType
 */
export type AccessDefault = (typeof ACCESS_DEFAULTS)[number];

/** A value a claim rule accepts: compared exactly, type included (`1` is not `"1"`). */
export type ClaimValue = string | number | boolean;

/**
 * What a caller must hold, every part of it: the names of each list (as the guards require them),
 * and, when given, verified claims and a step-up authentication (absent: no such condition).
 */
export interface AccessRequirement {
  readonly permissions: readonly string[];
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  /**
   * Claim name or dot path → accepted values: the verified claim (JWT payload, introspection
   * answer) equals one of them or, when it is a list, contains one. A credential without claims
   * (an API key) never holds it.
   */
  readonly claims?: Readonly<Record<string, readonly ClaimValue[]>>;
  /** RFC 9470: the token's `acr` must be one of these. */
  readonly acr?: readonly string[];
  /** RFC 9470: the token's `auth_time` must be at most this many seconds old. */
  readonly maxAge?: number;
}

/** A rule object of the `access` table: an authenticated caller who holds all it asks. */
export interface AccessRule extends AccessRequirement {
  /** One of these must hold as well (empty: no such condition). */
  readonly any: readonly AccessRequirement[];
  /** Only these modes may authenticate here; `null`: every mode of `auth.mode`. */
  readonly modes: readonly AuthMode[] | null;
  /** The route parameter that must equal the caller's `tenantId`; `null`: none. */
  readonly tenantParam: string | null;
  /**
   * MCP keys only: a dot path into the message's `params`, or a `{variable}` of the key's
   * template → the accepted values or the claim it must equal. Absent when not given.
   */
  readonly params?: Readonly<Record<string, ParamCondition>>;
}

/** One value of the `access` table. */
export type AccessValue = AccessWord | AccessRule;

/** `access.log`: `refusals` logs each decision that refuses, would refuse or ends; `none` (the default) nothing. */
export const ACCESS_LOGS = ['none', 'refusals'] as const;
/**
 * `none` or `refusals` (see `access.log`).
 * @useDeclaredType
 */
export type AccessLog = (typeof ACCESS_LOGS)[number];

/** `access.default`, `access.report_only` and `access.log`. */
export interface AccessPolicy {
  /** As written; `null` when not given, which means `authenticated`. */
  readonly default: AccessDefault | null;
  /** True: what a rule or `default: deny` would refuse is logged and counted, never answered. */
  readonly reportOnly: boolean;
  /**
   * `refusals`: each decision that refuses, would refuse or ends is one line through the
   * middleware's logger (outcome, reason, the deciding key, the mode). Default `none`. Absent in a
   * policy made by hand before this field: read as `none`.
   */
  readonly log?: AccessLog;
  /**
   * `access.tests`: policy test files (see docs/policy-testing.md) that start-up and every reload
   * run; a generation whose tests fail does not serve. Absent when not given.
   */
  readonly tests?: readonly string[];
  /** `access.candidate`: a second table, judged beside this one and never answering. Absent when not given. */
  readonly candidate?: string;
}

const names = z
  .array(z.string().regex(NAME, 'must be 1 to 128 characters of printable ASCII without space, " or \\'))
  .default([]);
// A claim path stands in a 403's message: held to the rules of a name, so it is safe anywhere.
const claimPath = z.string().regex(NAME, 'must be a claim name or dot path of printable ASCII without space, " or \\');
const claimValues = z
  .array(z.union([z.string(), z.number(), z.boolean()]))
  .min(1, 'must be a non-empty list of strings, numbers or booleans');
const requirementShape = {
  permissions: names,
  scopes: names,
  roles: names,
  claims: z
    .record(claimPath, claimValues)
    .refine((claims) => Object.keys(claims).length > 0, 'must name at least one claim')
    .optional(),
  acr: z
    .array(z.string().regex(NAME, 'must be 1 to 128 characters of printable ASCII without space, " or \\'))
    .min(1, 'must list at least one acr value')
    .optional(),
  max_age: z.int().min(0, 'must be 0 or more seconds').optional(),
};
type RawRequirement = {
  permissions: string[];
  scopes: string[];
  roles: string[];
  claims?: Record<string, ClaimValue[]> | undefined;
  acr?: string[] | undefined;
  max_age?: number | undefined;
};
/** True when a requirement asks for something. */
const asksSomething = (rule: RawRequirement) =>
  rule.permissions.length + rule.scopes.length + rule.roles.length > 0 ||
  rule.claims !== undefined ||
  rule.acr !== undefined ||
  rule.max_age !== undefined;
const RULE_ONLY = ['any', 'modes', 'tenant_param'] as const;
const REQUIREMENT_FIELDS = 'permissions, scopes, roles, claims, acr or max_age';

const anyEntrySchema = z
  .strictObject({
    ...requirementShape,
    any: z.unknown().optional(),
    modes: z.unknown().optional(),
    tenant_param: z.unknown().optional(),
  })
  .superRefine((entry, ctx) => {
    // Nesting would make a rule hard to read and to reason about: an entry is a plain requirement.
    const nested = RULE_ONLY.filter((field) => entry[field] !== undefined);
    for (const field of nested) {
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: 'an entry of any lists only permissions, scopes, roles, claims, acr and max_age',
      });
    }
    if (nested.length === 0 && !asksSomething(entry)) {
      ctx.addIssue({ code: 'custom', message: `must list ${REQUIREMENT_FIELDS}` });
    }
  })
  .transform(({ any: _any, modes: _modes, tenant_param: _tenant, ...requirement }) => requirement);

const ruleSchema = z
  .strictObject({
    ...requirementShape,
    any: z.array(anyEntrySchema).min(1, 'must list at least one entry').optional(),
    modes: z.array(modeSchema).min(1, 'must list at least one mode').optional(),
    tenant_param: z.string().regex(PARAM, 'must be a route parameter name such as tenant').optional(),
    params: paramsSchema,
  })
  .refine(
    (rule) =>
      asksSomething(rule) ||
      [rule.any, rule.modes, rule.tenant_param, rule.params].some((field) => field !== undefined),
    {
      message: `an empty rule: list ${REQUIREMENT_FIELDS.replace(' or ', ', ')}, any, modes, tenant_param or params (or write authenticated)`,
    },
  );

const valueSchema = z.union([z.enum(ACCESS_WORDS), ruleSchema]);

/**
 * The top-level `access` section: `default`, `report_only`, and `"METHOD /pattern"` → a word or a
 * rule object. Route keys are checked in {@link accessIssues}, with the modes they may name.
 */
export const accessSchema = z
  .object({
    default: z.enum(ACCESS_DEFAULTS).optional(),
    report_only: z.boolean().default(false),
    log: z.enum(ACCESS_LOGS).default('none'),
    tests: z.array(z.string().min(1, 'must be a file path')).min(1, 'must list at least one file').optional(),
    candidate: z.string().min(1, 'must be a file path').optional(),
  })
  .catchall(valueSchema)
  // The catchall's value type cannot describe `report_only` itself, so zod's typing needs a cast.
  .default({ report_only: false, log: 'none' } as never);

type RawAccess = z.output<typeof accessSchema>;
type RawRule = z.output<typeof ruleSchema>;

/** A problem of the `access` section, at a path below `access`. */
export interface AccessIssue {
  readonly path: (string | number)[];
  readonly message: string;
}

/**
 * What the schema alone cannot check: each key is `"METHOD /pattern"`, `modes` lists only modes of
 * `auth.mode`, `tenant_param` names a parameter of its pattern (when Express can parse it: a
 * pattern it cannot is the adapter's to judge).
 */
export function accessIssues(access: RawAccess, modes: readonly AuthMode[]): AccessIssue[] {
  const issues: AccessIssue[] = [];
  for (const [key, value] of routeEntries(access)) {
    if (isMcpKey(key)) {
      issues.push(...mcpKeyIssues(key, value, modes));
      continue;
    }
    let route: CompiledRoute;
    try {
      route = compileRouteKey(key);
    } catch (error) {
      // The shape is the config's to check; the pattern, its adapter's (see RoutePatternError).
      if (error instanceof RoutePatternError) continue;
      const suggestion = ROUTE.test(key)
        ? undefined
        : suggestField(key, ['default', 'report_only', 'log', 'tests', 'candidate']);
      const hint = suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`;
      issues.push({ path: [key], message: `${(error as Error).message}${hint}` });
      continue;
    }
    if (typeof value === 'string') continue;
    if (value.params !== undefined) {
      issues.push({ path: [key, 'params'], message: 'params applies to MCP keys only ("MCP <method> <name>")' });
    }
    for (const mode of value.modes ?? []) {
      if (!modes.includes(mode))
        issues.push({ path: [key, 'modes'], message: `${mode} is not a mode auth.mode lists` });
    }
    if (value.tenant_param !== undefined && !route.params.includes(value.tenant_param)) {
      const known = route.params.length === 0 ? 'it has none' : `it has ${route.params.join(', ')}`;
      issues.push({
        path: [key, 'tenant_param'],
        message: `${value.tenant_param} is not a parameter of the pattern (${known})`,
      });
    }
  }
  return issues;
}

/** An `"MCP <method> <name>"` key: its shape, its modes; it has no route parameter for `tenant_param`. */
function mcpKeyIssues(key: string, value: AccessWord | RawRule, modes: readonly AuthMode[]): AccessIssue[] {
  const parsed = parseMcpKey(key);
  if (parsed === null) {
    return [
      {
        path: [key],
        message: 'must be "MCP <method>" or "MCP <method> <name>", for example "MCP tools/call get_forecast"',
      },
    ];
  }
  if (typeof value === 'string') return templateIssues(key, parsed.name);
  const issues: AccessIssue[] = mcpRuleIssues(parsed.name, value).map(({ path, message }) => ({
    path: [key, ...path],
    message,
  }));
  issues.push(
    ...(value.modes ?? [])
      .filter((mode) => !modes.includes(mode))
      .map((mode) => ({ path: [key, 'modes'], message: `${mode} is not a mode auth.mode lists` })),
  );
  if (value.tenant_param !== undefined) {
    issues.push({ path: [key, 'tenant_param'], message: 'an MCP key names no route, so it has no parameter' });
  }
  return issues;
}

/** A word's key: only its template can be wrong. */
function templateIssues(key: string, name: string | null): AccessIssue[] {
  return mcpRuleIssues(name, { scopes: [] }).map(({ message }) => ({ path: [key], message }));
}

/** The `access` section as the config holds it: the route table and the policy. */
export function toAccessConfig(access: RawAccess): {
  access: Readonly<Record<string, AccessValue>>;
  accessPolicy: AccessPolicy;
} {
  const table: Record<string, AccessValue> = {};
  for (const [key, value] of routeEntries(access)) table[key] = typeof value === 'string' ? value : toRule(value);
  const policy: AccessPolicy = { default: access.default ?? null, reportOnly: access.report_only, log: access.log };
  return {
    access: table,
    accessPolicy: {
      ...policy,
      ...(access.tests === undefined ? {} : { tests: access.tests }),
      ...(access.candidate === undefined ? {} : { candidate: access.candidate }),
    },
  };
}

function routeEntries(access: RawAccess): [string, AccessWord | RawRule][] {
  return Object.entries(access).filter((entry): entry is [string, AccessWord | RawRule] => !isPolicyKey(entry[0]));
}

/** The keys of `access` that say how the table is used, not which route: never a route key. */
export const isPolicyKey = (key: string) =>
  key === 'default' || key === 'report_only' || key === 'log' || key === 'tests' || key === 'candidate';

function toRule(rule: RawRule): AccessRule {
  // The new fields appear only when given, so a rule without them keeps the shape it always had.
  const requirement = (entry: RawRequirement): AccessRequirement => ({
    permissions: [...new Set(entry.permissions)],
    scopes: [...new Set(entry.scopes)],
    roles: [...new Set(entry.roles)],
    ...(entry.claims === undefined ? {} : { claims: entry.claims }),
    ...(entry.acr === undefined ? {} : { acr: [...new Set(entry.acr)] }),
    ...(entry.max_age === undefined ? {} : { maxAge: entry.max_age }),
  });
  return {
    ...requirement(rule),
    any: (rule.any ?? []).map(requirement),
    modes: rule.modes === undefined ? null : [...new Set(rule.modes)],
    tenantParam: rule.tenant_param ?? null,
    ...(rule.params === undefined ? {} : { params: rule.params }),
  };
}

/** What a route pattern's match gives: the parameters by name, decoded as Express decodes them. */
export type RouteParams = Readonly<Partial<Record<string, string | string[]>>>;

/** One `"METHOD /pattern"` key, ready to match requests as Express 5's router would. */
export interface CompiledRoute {
  readonly key: string;
  /** An upper-case method, or `*` for every method. */
  readonly method: string;
  readonly pattern: string;
  /** The names of the pattern's parameters and splats. */
  readonly params: readonly string[];
  /** A few paths the pattern matches (each optional group with and without), to compare patterns. */
  readonly examples: readonly string[];
  /**
   * The first segment every path the pattern matches has (`reports` for `/reports/:id`), lower
   * case; `null` when the pattern does not fix it (`/:lang/home`, `/docs{/*rest}`). A path whose
   * first segment differs, ASCII letters' case aside, is not matched: a table can be indexed by it.
   */
  readonly firstSegment: string | null;
  /**
   * The path's parameters when the pattern matches it, else `false`. Throws a `URIError` when a
   * parameter's percent-encoding is broken (Express answers that request 400).
   */
  matchPath(path: string): RouteParams | false;
}

/**
 * A key of the right shape whose pattern Express 5's router cannot parse (`/files/*`, Fastify's
 * wildcard): the config takes it, and the adapter judges it (Express refuses it at
 * `createAuthMiddleware`; Fastify names its routes by their URL as registered).
 */
export class RoutePatternError extends Error {
  override readonly name = 'RoutePatternError';
  constructor(detail: string, options?: ErrorOptions) {
    super(`Express cannot parse the pattern: ${detail}`, options);
  }
}

/**
 * Compiles an `access` key as Express 5's router compiles a route registered with default options
 * (`app.get(pattern)`: case-insensitive, trailing slash optional, parameters percent-decoded), and
 * matches any number of trailing slashes (as a route `/` of a mounted router does).
 *
 * @throws Error saying what is wrong with the key's shape (its message names no secret: keys are
 *   policy), or {@link RoutePatternError} when Express cannot parse its pattern
 */
export function compileRouteKey(key: string): CompiledRoute {
  const parts = ROUTE.exec(key);
  const method = parts?.[1];
  const pattern = parts?.[2];
  if (method === undefined || pattern === undefined) {
    throw new Error('must be "METHOD /pattern", for example "GET /reports/:id" (METHOD upper case, or *)');
  }
  if (!METHODS.has(method)) throw new Error(`${method} is not a method a rule can name (${[...METHODS].join(', ')})`);
  let tokens: Token[];
  try {
    tokens = parse(pattern).tokens;
  } catch (error) {
    if (!(error instanceof PathError || error instanceof TypeError)) throw error;
    throw new RoutePatternError(error.message.replace(/; visit .*$/, ''), { cause: error });
  }
  const loose = loosen(pattern);
  const matcher = match(loose, { sensitive: false, end: true, trailing: true, decode: decodeParam });
  const { prefix, whole } = literalPrefix(parse(loose).tokens);
  return Object.freeze({
    key,
    method,
    pattern,
    params: Object.freeze(paramNames(tokens)),
    examples: Object.freeze(examplesOf(tokens).slice(0, 16)),
    firstSegment: firstSegmentOf(prefix, whole),
    matchPath: (path: string) => {
      // Most keys of a table cannot match a given path, and their literal beginning says so for a
      // few characters' comparison instead of a regular expression's run.
      if (!startsWithLiteral(path, prefix)) return false;
      // A router mounted at /api with a route '/' serves '/api//' too (the mount strips '/api', the
      // route's trailing slash is optional): a key matches any number of trailing slashes, a
      // superset of what an app-level route matches, so the rule applies wherever a handler runs.
      const found = matcher(path) || (path.endsWith('//') && matcher(path.replace(/\/+$/, '/')));
      return found === false ? false : found.params;
    },
  });
}

// As the router's Layer: trailing slashes of a pattern are dropped, so `/a/` matches `/a` too.
function loosen(pattern: string): string {
  return pattern === '/' ? pattern : pattern.replace(/\/+$/, '');
}

/**
 * The pattern's literal beginning (its leading text), lower case; a key is printable ASCII (see
 * `ROUTE`), so the text is too. path-to-regexp matches without the `u` flag, where `i` folds ASCII
 * letters only onto ASCII letters (ECMA-262 Canonicalize: a non-ASCII character never folds to an
 * ASCII one), so a path the pattern matches starts with this prefix, ASCII letters in either case.
 * `whole`: the prefix is the entire pattern.
 */
function literalPrefix(tokens: readonly Token[]): { prefix: string; whole: boolean } {
  let text = '';
  let count = 0;
  for (const token of tokens) {
    if (token.type !== 'text') break;
    text += token.value;
    count += 1;
  }
  return { prefix: text.toLowerCase(), whole: count === tokens.length };
}

/**
 * The first segment that `prefix` (see {@link literalPrefix}) fixes: the text between its leading
 * `/` and the next one, or its end when the whole pattern is that text (`/invoke` matches
 * `/invoke/` too, and the same segment). `null` when a parameter or group may extend it.
 */
function firstSegmentOf(prefix: string, wholePattern: boolean): string | null {
  if (!prefix.startsWith('/')) return null;
  const slash = prefix.indexOf('/', 1);
  const segment = slash === -1 ? (wholePattern ? prefix.slice(1) : null) : prefix.slice(1, slash);
  return segment === '' ? null : segment;
}

/** `path` starts with `prefix` (lower-case ASCII), ASCII letters of `path` in either case. */
function startsWithLiteral(path: string, prefix: string): boolean {
  if (path.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i += 1) {
    const code = path.charCodeAt(i);
    // A-Z to a-z; every other character as it is.
    if ((code >= 65 && code <= 90 ? code + 32 : code) !== prefix.charCodeAt(i)) return false;
  }
  return true;
}

// As the router's Layer: percent-decoded, and a broken encoding is an error (a 400 in Express).
function decodeParam(value: string): string {
  return value.length === 0 ? value : decodeURIComponent(value);
}

function paramNames(tokens: readonly Token[]): string[] {
  return tokens.flatMap((token) => {
    if (token.type === 'param' || token.type === 'wildcard') return [token.name];
    return token.type === 'group' ? paramNames(token.tokens) : [];
  });
}

function examplesOf(tokens: readonly Token[]): string[] {
  let paths = [''];
  for (const token of tokens) {
    let endings: string[];
    if (token.type === 'text') endings = [token.value];
    else if (token.type === 'param') endings = ['p1'];
    else if (token.type === 'wildcard') endings = ['p1/p2'];
    else endings = ['', ...examplesOf(token.tokens)];
    paths = paths.flatMap((path) => endings.map((ending) => path + ending)).slice(0, 64);
  }
  return paths;
}

/** `auth.fallback`: what a missing mode package means. */
export const FALLBACKS = ['no_auth', 'refuse'] as const;
/**
 * One of {@link FALLBACKS}.
 * @useDeclaredType
 */
export type Fallback = (typeof FALLBACKS)[number];
export const fallbackSchema = z.enum(FALLBACKS).default('no_auth');
