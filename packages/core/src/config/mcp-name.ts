// The name part of an `"MCP <method> <name>"` key: an exact name, a prefix pattern (`admin_*`), or
// an RFC 6570 level-1 template (`files://{tenant}/{path}`, and `{+path}` for a value with `/`).

/** How an MCP key's name matches a message's name (a tool's or prompt's name, a resource's URI). */
export interface McpNamePattern {
  readonly kind: 'exact' | 'prefix' | 'template';
  /** The template's variables, in order (empty for the other kinds). */
  readonly variables: readonly string[];
  /** The variables' values when `name` matches (`{}` without variables), else `null`. */
  match(name: string): Readonly<Record<string, string>> | null;
}

/** `{var}` or `{+var}`: RFC 6570's varname without pct-encoding or dots. */
const VARIABLE = /\{(\+?)([A-Za-z0-9_]{1,64})\}/g;

/**
 * The pattern of a key's name (not `*`, the method's default): `admin_*` matches by prefix, a name
 * with `{` is a template whose variable matches one or more characters other than `/` (`{+var}`:
 * `/` too), any other name matches itself. Values are matched as sent, never percent-decoded.
 *
 * @throws Error saying what is wrong with a template (its message names only the key's text)
 * @example
 * compileMcpName('files://{tenant}/{path}').match('files://acme/a.txt'); // { tenant: 'acme', path: 'a.txt' }
 */
export function compileMcpName(name: string): McpNamePattern {
  if (name.includes('{') || name.includes('}')) return compileTemplate(name);
  if (name.endsWith('*') && name.length > 1) {
    const prefix = name.slice(0, -1);
    return freeze('prefix', [], (value) => (value.startsWith(prefix) ? EMPTY : null));
  }
  return freeze('exact', [], (value) => (value === name ? EMPTY : null));
}

const EMPTY: Readonly<Record<string, string>> = Object.freeze({});

function freeze(kind: McpNamePattern['kind'], variables: string[], match: McpNamePattern['match']): McpNamePattern {
  return Object.freeze({ kind, variables: Object.freeze(variables), match });
}

function compileTemplate(name: string): McpNamePattern {
  const variables: string[] = [];
  let source = '^';
  let last = 0;
  let reserved = 0;
  for (const found of name.matchAll(VARIABLE)) {
    const literal = name.slice(last, found.index);
    if (literal.includes('{') || literal.includes('}')) throw new Error(TEMPLATE);
    // Two variables side by side have no boundary: which characters are whose is a guess.
    if (literal === '' && variables.length > 0) throw new Error('two template variables must be apart');
    const variable = found[2] as string;
    if (variables.includes(variable)) throw new Error(`the template names ${variable} twice`);
    // One `{+var}` at most: several make a match's cost grow with the URI's length to their power.
    if (found[1] === '+' && ++reserved > 1) throw new Error('a template may have one {+variable} at most');
    variables.push(variable);
    source += `${escape(literal)}(${found[1] === '+' ? '.+' : '[^/]+'})`;
    last = found.index + found[0].length;
  }
  const tail = name.slice(last);
  if (tail.includes('{') || tail.includes('}')) throw new Error(TEMPLATE);
  const pattern = new RegExp(`${source}${escape(tail)}$`, 's');
  return freeze('template', variables, (value) => {
    const parts = pattern.exec(value);
    if (parts === null) return null;
    const values: Record<string, string> = Object.create(null) as Record<string, string>;
    variables.forEach((variable, index) => (values[variable] = parts[index + 1] as string));
    return values;
  });
}

const TEMPLATE = 'a template variable is {name} or {+name} (letters, digits, _)';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
