// A leaf: the loaders of modes, rate limits and Redis stores all need these two, and none of them
// should stand on another for it.
import { ConfigError } from '@authlayer/core';

/**
 * `load()`, a dynamic import of a module that needs optional peers; when one of `packages` is not
 * installed, a ConfigError at `path` names it and says what to install.
 */
export async function importWithPeers<T>(
  load: () => Promise<T>,
  packages: readonly string[],
  path: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = packages.find((name) => isPackageMissing(error, name));
    if (missing === undefined) throw error;
    throw new ConfigError({
      path,
      message: `needs the package ${missing}, which is not installed: install ${packages.join(' and ')} in the app (optional peers of @authlayer/engine, which every adapter uses)`,
    });
  }
}

/** Node says `Cannot find package 'NAME' imported from ...` when NAME itself is missing. */
export function isPackageMissing(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.startsWith(`Cannot find package '${name}'`)
  );
}
