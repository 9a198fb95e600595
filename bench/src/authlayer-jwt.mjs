// Finds @authlayer/jwt, which may not be installed (it is built in parallel). AUTHLAYER_JWT_MODULE
// points at a built entry file instead (for example an unmerged branch's packages/jwt/dist/index.js).
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const JWT_PACKAGE = '@authlayer/jwt';
export const SKIPPED_LINE = `authlayer jwt contenders skipped: ${JWT_PACKAGE} not installed`;

function specifier(env = process.env) {
  const override = env.AUTHLAYER_JWT_MODULE;
  if (override === undefined || override === '') return JWT_PACKAGE;
  return pathToFileURL(isAbsolute(override) ? override : resolve(override)).href;
}

/** Imports @authlayer/jwt (or the override). Rejects as `import()` does. */
export function importAuthlayerJwt(env = process.env) {
  return import(specifier(env));
}

/**
 * Whether @authlayer/jwt can be loaded. Resolves false only when the package itself is missing;
 * a package that is present but broken is an error, not a silent skip.
 */
export async function authlayerJwtAvailable(env = process.env) {
  try {
    const mod = await importAuthlayerJwt(env);
    if (typeof mod.createHandler !== 'function') throw new Error(`${JWT_PACKAGE} does not export createHandler`);
    return true;
  } catch (error) {
    const missing =
      error?.code === 'ERR_MODULE_NOT_FOUND' &&
      String(error.message).startsWith(`Cannot find package '${JWT_PACKAGE}'`);
    if (missing) return false;
    throw error;
  }
}

/**
 * The `importModule` option given to createAuthMiddleware: mode packages are resolved from the
 * bench package (its own dependencies), not from wherever @authlayer/express happens to live.
 */
export const importModeFromBench = (name) => (name === JWT_PACKAGE ? importAuthlayerJwt() : import(name));

const FAST_PATH = 'const verify = createFastVerifier(key, settings, createJoseVerifier(key, settings));';

/**
 * The installed @authlayer/jwt with its fast path taken out: every token goes to jose's
 * `jwtVerify` behind the same cache, middleware and claims mapping. A copy of `dist/` in the
 * package's own `node_modules/` (so its imports resolve as the package's do, and no tool lints it)
 * with one line changed; it answers
 * whether the hand-written verification pays for itself in the same paired run.
 */
export async function importJoseOnlyJwt() {
  const { cp, readFile, writeFile } = await import('node:fs/promises');
  const { dirname, join } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const dist = dirname(fileURLToPath(import.meta.resolve(JWT_PACKAGE)));
  const copy = join(dist, '..', 'node_modules', '.bench-jose-only');
  await cp(dist, copy, { recursive: true });
  const file = join(copy, 'verify', 'verify-token.js');
  const source = await readFile(file, 'utf8');
  if (!source.includes(FAST_PATH)) throw new Error(`${file}: the fast path's line moved; update the bench`);
  await writeFile(file, source.replace(FAST_PATH, 'const verify = createJoseVerifier(key, settings);'));
  return import(pathToFileURL(join(copy, 'index.js')).href);
}
