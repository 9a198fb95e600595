import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { LineCounter, isNode, parseDocument, visit, type Document } from 'yaml';
import type { AuthConfig } from './auth-config.js';
import { ConfigError } from './config-error.js';
import { markConfigSource, parseAuthConfig } from './parse-auth-config.js';

/**
 * Reads a YAML config file and checks it with {@link parseAuthConfig}.
 *
 * @throws ConfigError when the file cannot be read (`config: cannot read /srv/service.yaml (ENOENT)`, the absolute path),
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
    // The absolute path: a relative one says nothing when the command ran in another directory.
    throw new ConfigError({ path: 'config', message: `cannot read ${resolve(path)} (${code})` });
  }
  // Remembered, so that `auth.reload()` reads the same file again and `reload.watch` watches it.
  return markConfigSource(parseAuthConfig(parseYaml(text, path)), resolve(path));
}

/**
 * Parses YAML text as plain YAML 1.2 data; a syntax error becomes a ConfigError that names the file and line, and an
 * empty document or an alias expansion past 100 nodes (a "billion laughs" file) is refused too,
 * and so is anything that would change what plain data means: a `%YAML` directive other than
 * 1.2 (in YAML 1.1 `enabled: off` is false), a `%TAG` directive, or any tag (`!custom`, `!!str`).
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
  refuseNonPlainYaml(document, (offset) => lineCounter.linePos(offset).line, source);
  if (document.contents === null) throw new ConfigError({ path: 'config', message: `${source} is empty` });
  try {
    return document.toJS({ maxAliasCount: 100 });
  } catch {
    // yaml throws a bare ReferenceError when aliases would expand past maxAliasCount.
    throw new ConfigError({ path: 'config', message: `${source}: not valid YAML (too many aliases)` });
  }
}

const CORE_TAGS = 'tag:yaml.org,2002:';

/** Throws when the document is not plain YAML 1.2 data (see {@link parseYaml}). */
function refuseNonPlainYaml(document: Document, lineOf: (offset: number) => number, source: string): void {
  const refuse = (line: number, what: string) => {
    throw new ConfigError({
      path: 'config',
      message: `${source}, line ${line}: ${what} (only plain YAML 1.2 data is read)`,
    });
  };
  const { yaml, tags } = document.directives ?? { yaml: { explicit: false, version: '1.2' }, tags: {} };
  if (yaml.explicit && yaml.version !== '1.2') refuse(1, `a %YAML ${yaml.version} directive is not allowed`);
  if (Object.entries(tags).some(([handle, prefix]) => handle !== '!!' || prefix !== CORE_TAGS)) {
    refuse(1, 'a %TAG directive is not allowed');
  }
  visit(document, (_key, node) => {
    if (isNode(node) && node.tag !== undefined) refuse(lineOf(node.range?.[0] ?? 0), 'a tag (!...) is not allowed');
  });
}
