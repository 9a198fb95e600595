import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import type { AuthConfig } from './auth-config.js';
import { ConfigError } from './config-error.js';
import { parseAuthConfig } from './parse-auth-config.js';

/**
 * Reads a YAML config file and checks it with {@link parseAuthConfig}.
 *
 * @throws ConfigError when the file cannot be read (`config: cannot read service.yaml (ENOENT)`),
 *   is not valid YAML (the message names the line), or breaks a rule.
 * @example
 * const config = await loadConfig('service.yaml');
 */
export async function loadConfig(path: string): Promise<AuthConfig> {
  if (typeof path !== 'string' || path === '') throw new TypeError('loadConfig(path): path must be a non-empty string');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new ConfigError({ path: 'config', message: `cannot read ${path} (${code})` });
  }
  return parseAuthConfig(parseYaml(text, path));
}

/**
 * Parses YAML text; a syntax error becomes a ConfigError that names the file and line, and an
 * empty document or an alias expansion past 100 nodes (a "billion laughs" file) is refused too.
 */
export function parseYaml(text: string, source = 'config'): unknown {
  // The line comes from a LineCounter: with prettyErrors off, yaml leaves `linePos` unset.
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter });
  const [error] = document.errors;
  if (error !== undefined) {
    const { line } = lineCounter.linePos(error.pos[0]);
    throw new ConfigError({ path: 'config', message: `${source}, line ${line}: not valid YAML (${error.code})` });
  }
  if (document.contents === null) throw new ConfigError({ path: 'config', message: `${source} is empty` });
  try {
    return document.toJS({ maxAliasCount: 100 });
  } catch {
    // yaml throws a bare ReferenceError when aliases would expand past maxAliasCount.
    throw new ConfigError({ path: 'config', message: `${source}: not valid YAML (too many aliases)` });
  }
}
