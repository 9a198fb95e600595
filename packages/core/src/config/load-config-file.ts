import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
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
    throw new ConfigError({ path: '', message: `cannot read ${path} (${code})` });
  }
  return parseAuthConfig(parseYaml(text, path));
}

/** Parses YAML text; a syntax error becomes a ConfigError that names the file and line. */
export function parseYaml(text: string, source = 'config'): unknown {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const [error] = document.errors;
  if (error !== undefined) {
    const line = error.linePos?.[0]?.line;
    const where = line === undefined ? source : `${source}, line ${line}`;
    throw new ConfigError({ path: '', message: `${where}: not valid YAML (${error.code})` });
  }
  return document.toJS({ maxAliasCount: 100 });
}
