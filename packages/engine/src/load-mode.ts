import {
  ConfigError,
  createNoAuthHandler,
  type AuthConfig,
  type AuthHandler,
  type AuthMode,
  type CreateHandler,
  type HandlerDeps,
} from '@authlayer/core';
import { combineHandlers } from './combine-handlers.js';

/** The package that implements a mode: `@authlayer/` and the mode with `-` for `_`. */
export function modePackageName(mode: AuthMode): string {
  return `@authlayer/${mode.replaceAll('_', '-')}`;
}

/** What was loaded: the handler, and whether it is the no-auth fallback for a missing package. */
export interface LoadedMode {
  /** One mode's handler, several combined (the credential picks the mode), or the no-auth handler. */
  readonly handler: AuthHandler;
  /** True when every listed mode's package is missing and nothing is checked. */
  readonly fallback: boolean;
  /** The methods that authenticate, in the order `auth.mode` lists them; `['none']` when none does. */
  readonly methods: readonly AuthHandler['method'][];
  /** Each loaded mode's own handler, in that order (none for the fallback). */
  readonly handlers: readonly AuthHandler[];
}

/** How a package is imported; replaceable so a test can point at a package by path. */
export type ImportModule = (specifier: string) => Promise<unknown>;

const importByName: ImportModule = (specifier) => import(specifier);

/**
 * Imports the package of each mode `auth.mode` lists and calls its `createHandler`. A package that
 * is not installed is left out with a warning naming it; only when every listed package is missing
 * does it fall back to the no-auth handler, warning that requests are NOT authenticated. With
 * `auth.fallback: refuse` a missing package is a start-up failure instead. A package that is present
 * but broken, or a missing dependency of it, is always a start-up failure. A mode that turns itself
 * off (`api_keys.enabled: false`) is left out of a list the same way.
 *
 * @throws ConfigError when a package is missing and `auth.fallback` is `refuse`; Error when a
 *   package cannot be loaded or does not export `createHandler`; whatever its `createHandler` throws.
 */
export async function loadModeHandler(
  config: AuthConfig,
  deps: HandlerDeps,
  importModule: ImportModule = importByName,
): Promise<LoadedMode> {
  const factories = await importFactories(config, deps, importModule);
  const handlers: AuthHandler[] = [];
  for (const createHandler of factories) {
    const handler = await createHandler(config, deps);
    if (handler.method !== 'none') handlers.push(handler);
  }
  if (handlers.length === 0)
    return { handler: createNoAuthHandler(), fallback: factories.length === 0, methods: ['none'], handlers };
  const methods = handlers.map((handler) => handler.method);
  if (handlers.length === 1) return { handler: handlers[0] as AuthHandler, fallback: false, methods, handlers };
  return { handler: await combineHandlers(handlers, config), fallback: false, methods, handlers };
}

async function importFactories(
  config: AuthConfig,
  deps: HandlerDeps,
  importModule: ImportModule,
): Promise<CreateHandler[]> {
  const factories: CreateHandler[] = [];
  const missing: AuthMode[] = [];
  for (const mode of config.modes) {
    const factory = await importFactory(mode, importModule);
    if (factory !== undefined) factories.push(factory);
    else missing.push(mode);
  }
  if (missing.length === 0) return factories;
  const names = missing.map(modePackageName);
  if (config.fallback === 'refuse') {
    throw new ConfigError({
      path: 'auth.mode',
      message: `the package ${names.join(', ')} is not installed and auth.fallback is refuse`,
    });
  }
  deps.logger.warn(factories.length === 0 ? fallbackWarning(config, names) : leftOutWarning(missing, names));
  return factories;
}

function fallbackWarning(config: AuthConfig, names: string[]): string {
  const what = config.modes.length === 1 ? `is "${config.mode}"` : `lists ${config.modes.join(', ')}`;
  const packages = names.length === 1 ? `the package ${names[0]} is` : `the packages ${names.join(', ')} are`;
  return (
    `auth.mode ${what} but ${packages} not installed: falling back to the no-auth handler, ` +
    `requests are NOT authenticated. Install ${names.join(', ')} to authenticate requests.`
  );
}

function leftOutWarning(missing: AuthMode[], names: string[]): string {
  const packages = names.length === 1 ? `the package ${names[0]} is` : `the packages ${names.join(', ')} are`;
  return (
    `auth.mode lists ${missing.join(', ')} but ${packages} not installed: ${missing.join(', ')} is left out ` +
    `and its credentials are refused. Install ${names.join(', ')} to accept them.`
  );
}

/** The package's `createHandler`, or undefined when the package itself is not installed. */
async function importFactory(mode: AuthMode, importModule: ImportModule): Promise<CreateHandler | undefined> {
  const name = modePackageName(mode);
  let loaded: unknown;
  try {
    loaded = await importModule(name);
  } catch (error) {
    if (isPackageMissing(error, name)) return undefined;
    throw new Error(`cannot load ${name}: ${describe(error)}`, { cause: error });
  }
  const createHandler = (loaded as { createHandler?: unknown } | null)?.createHandler;
  if (typeof createHandler !== 'function') throw new Error(`${name} does not export a createHandler function`);
  return createHandler as CreateHandler;
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

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name} ${(error as { code?: string }).code ?? ''}`.trim() : 'unknown error';
}
