import {
  ConfigError,
  createNoAuthHandler,
  type AuthConfig,
  type AuthHandler,
  type AuthMode,
  type CreateHandler,
  type HandlerDeps,
} from '@authlayer/core';
import { defaultSectionKey, knownFields, sectionPathOf, shownInError, suggestField } from '@authlayer/core/internal';
import { AUTH_MODES, configSchema, isKnownAuthMode } from '@authlayer/core';
import { combineHandlers } from './combine-handlers.js';
import { isPackageMissing } from './optional-peers.js';

/**
 * The package that implements a mode: `@authlayer/` and the mode with `-` for `_` (`hmac` →
 * `@authlayer/hmac`); a scoped name (`@acme/authlayer-hmac`) is the package itself.
 */
export function modePackageName(mode: AuthMode): string {
  return mode.startsWith('@') ? mode : `@authlayer/${mode.replaceAll('_', '-')}`;
}

/**
 * What a mode package exports besides `createHandler`, read by the loader (see docs/modes.md,
 * "Writing a mode package"). The modes of this repository export both, as any other.
 */
export interface ModeModule {
  readonly createHandler: CreateHandler;
  /** The key of its section under `auth`; default: the mode's name without a scope (`hmac`). */
  readonly section?: string;
  /**
   * Its section's schema, a Standard Schema (zod 3.24+, zod 4, valibot, arktype): given the section as
   * written (`undefined` when absent), its issues become a ConfigError at `auth.<section>.<path>`,
   * its value is the handler's `deps.section`.
   */
  readonly configSchema?: StandardSchema;
}

/** The part of a Standard Schema (https://standardschema.dev, v1) the loader uses. */
export interface StandardSchema {
  readonly '~standard': {
    validate(value: unknown): StandardResult | Promise<StandardResult>;
  };
}

/** A path as a Standard Schema issue gives it. */
type StandardPath = readonly (PropertyKey | { readonly key: PropertyKey })[];

type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | {
      readonly issues: readonly {
        readonly message: string;
        readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
      }[];
    };

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
  const sections = await checkSections(config, factories, importModule);
  const handlers: AuthHandler[] = [];
  for (const [index, { createHandler }] of factories.entries()) {
    const section = sections[index];
    const handler = await createHandler(config, section === NO_SECTION ? deps : { ...deps, section });
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
): Promise<LoadedModule[]> {
  const factories: LoadedModule[] = [];
  const missing: AuthMode[] = [];
  for (const mode of config.modes) {
    const factory = await importFactory(mode, importModule);
    if (factory !== undefined) factories.push({ ...factory, mode });
    else missing.push(mode);
  }
  if (missing.length === 0) return factories;
  // The spec's fallback is for the modes it names. Another name is a package the config asks for
  // by name: missing, it is most likely a typo (`basic`), and a start-up failure says so.
  const unknown = missing.filter((mode) => !isKnownAuthMode(mode));
  if (unknown.length > 0) {
    throw new ConfigError({
      path: 'auth.mode',
      message: `must be one of: ${AUTH_MODES.join(', ')}, or an installed mode package (${unknown.map(modePackageName).join(', ')} is not installed)`,
    });
  }
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

/** A mode's package as imported, with the mode `auth.mode` named it by. */
interface LoadedModule extends ModeModule {
  readonly mode: AuthMode;
}

const NO_SECTION = Symbol('no section');

/**
 * Each loaded package's section, checked by its own `configSchema` (in the order of `factories`;
 * {@link NO_SECTION} for a mode whose section is core's). A key that no listed mode reads may be
 * the section of a spec mode the config does not list (`api_keys` kept beside `mode: jwt`, for a
 * switch back): that mode's package, when installed, checks it. Any other key is refused as an
 * unknown field, unless a listed package is missing (its section key is then unknown: left alone,
 * under the fallback's loud warning).
 *
 * @throws ConfigError naming every issue, at `auth.<section>.<path>`
 */
async function checkSections(
  config: AuthConfig,
  modules: readonly LoadedModule[],
  importModule: ImportModule,
): Promise<unknown[]> {
  const raw = config.modeSections ?? {};
  const issues: { path: string; message: string }[] = [];
  const claimed = new Set<string>();
  const sections: unknown[] = [];
  for (const module of modules) {
    const key = module.section ?? defaultSectionKey(module.mode);
    claimed.add(key);
    const checked = await checkSection(module, key, raw[key]);
    sections.push(checked.value);
    issues.push(...checked.issues);
  }
  const unclaimed = Object.keys(raw).filter((key) => !claimed.has(key));
  if (unclaimed.length > 0 && modules.length === config.modes.length) {
    const others = await unlistedModules(config, importModule);
    const known = [...knownFields(configSchema, ['auth']), ...claimed];
    for (const key of unclaimed) {
      const owner = others.find((module) => module.section === key);
      if (owner !== undefined) issues.push(...(await checkSection(owner, key, raw[key])).issues);
      else
        issues.push({
          path: `auth.${shownInError(key)}`,
          message: unknownField(key, [...known, ...others.map((module) => module.section)]),
        });
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return sections;
}

async function checkSection(
  module: ModeModule,
  key: string,
  raw: unknown,
): Promise<{ value: unknown; issues: { path: string; message: string }[] }> {
  if (module.configSchema === undefined) return { value: raw === undefined ? NO_SECTION : raw, issues: [] };
  const result = await module.configSchema['~standard'].validate(raw);
  if (result.issues === undefined) return { value: result.value, issues: [] };
  // A Standard Schema path segment may be a `{ key }` object; core writes the path from the keys.
  const keysOf = (path: StandardPath) => path.map((part) => (typeof part === 'object' ? part.key : part));
  const issues = result.issues.map((issue) => ({
    path: sectionPathOf(key, keysOf(issue.path ?? [])),
    message: issue.message,
  }));
  return { value: NO_SECTION, issues };
}

/** A package with the key of its section: its own, or the loader's default for its mode. */
type SectionedModule = ModeModule & { readonly section: string };

/**
 * The installed packages of the spec's modes that `auth.mode` does not list, each with its
 * section's key as a listed one would have it (a package that names none reads its mode's name).
 */
async function unlistedModules(config: AuthConfig, importModule: ImportModule): Promise<SectionedModule[]> {
  const modes = AUTH_MODES.filter((mode) => !config.modes.includes(mode));
  const loaded = await Promise.all(
    modes.map(async (mode) => {
      const module = await importFactory(mode, importModule).catch(() => undefined);
      return module === undefined ? undefined : { ...module, section: module.section ?? defaultSectionKey(mode) };
    }),
  );
  return loaded.filter((module) => module !== undefined);
}

function unknownField(key: string, known: readonly string[]): string {
  const suggestion = suggestField(key, known);
  return suggestion === undefined ? 'unknown field' : `unknown field (did you mean ${suggestion}?)`;
}

/** The package's exports, or undefined when the package itself is not installed. */
async function importFactory(mode: AuthMode, importModule: ImportModule): Promise<ModeModule | undefined> {
  const name = modePackageName(mode);
  let loaded: unknown;
  try {
    loaded = await importModule(name);
  } catch (error) {
    if (isPackageMissing(error, name)) return undefined;
    throw new Error(`cannot load ${name}: ${describe(error)}`, { cause: error });
  }
  const module = (loaded ?? {}) as { createHandler?: unknown; section?: unknown; configSchema?: unknown };
  if (typeof module.createHandler !== 'function') throw new Error(`${name} does not export a createHandler function`);
  if (module.section !== undefined && (typeof module.section !== 'string' || module.section === ''))
    throw new Error(`${name} exports a section that is not a key name`);
  const schema = module.configSchema as Partial<StandardSchema> | undefined;
  if (schema !== undefined && typeof schema?.['~standard']?.validate !== 'function')
    throw new Error(`${name} exports a configSchema that is not a Standard Schema (zod, valibot, arktype)`);
  return {
    createHandler: module.createHandler as CreateHandler,
    ...(module.section === undefined ? {} : { section: module.section as string }),
    ...(schema === undefined ? {} : { configSchema: schema as StandardSchema }),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name} ${(error as { code?: string }).code ?? ''}`.trim() : 'unknown error';
}
