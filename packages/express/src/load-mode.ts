import {
  createNoAuthHandler,
  type AuthConfig,
  type AuthHandler,
  type AuthMode,
  type CreateHandler,
  type HandlerDeps,
} from '@authlayer/core';

/** The package that implements a mode: `@authlayer/` and the mode with `-` for `_`. */
export function modePackageName(mode: AuthMode): string {
  return `@authlayer/${mode.replaceAll('_', '-')}`;
}

/** What was loaded: the handler, and whether it is the no-auth fallback for a missing package. */
export interface LoadedMode {
  readonly handler: AuthHandler;
  readonly fallback: boolean;
}

/** How a package is imported; replaceable so a test can point at a package by path. */
export type ImportModule = (specifier: string) => Promise<unknown>;

const importByName: ImportModule = (specifier) => import(specifier);

/**
 * Imports the package of `config.mode` and calls its `createHandler`. Only when that package
 * itself is not installed does it fall back to the no-auth handler, warning loudly; a package
 * that is present but broken, or a missing dependency of it, is a start-up failure.
 *
 * @throws Error when the package cannot be loaded or does not export `createHandler`;
 *   whatever its `createHandler` throws (ConfigError for missing key material).
 */
export async function loadModeHandler(
  config: AuthConfig,
  deps: HandlerDeps,
  importModule: ImportModule = importByName,
): Promise<LoadedMode> {
  const name = modePackageName(config.mode);
  let loaded: unknown;
  try {
    loaded = await importModule(name);
  } catch (error) {
    if (!isPackageMissing(error, name)) throw new Error(`cannot load ${name}: ${describe(error)}`, { cause: error });
    deps.logger.warn(
      `auth.mode is "${config.mode}" but the package ${name} is not installed: falling back to the no-auth handler, ` +
        `requests are NOT authenticated. Install ${name} to authenticate requests.`,
    );
    return { handler: createNoAuthHandler(), fallback: true };
  }
  const createHandler = (loaded as { createHandler?: unknown } | null)?.createHandler;
  if (typeof createHandler !== 'function') throw new Error(`${name} does not export a createHandler function`);
  return { handler: await (createHandler as CreateHandler)(config, deps), fallback: false };
}

/** Node says `Cannot find package 'NAME' imported from ...` when NAME itself is missing. */
function isPackageMissing(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.startsWith(`Cannot find package '${name}'`)
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name} ${(error as { code?: string }).code ?? ''}`.trim() : 'unknown error';
}
