import {
  isParsedAuthConfig,
  loadConfig,
  parseAuthConfig,
  type AuthConfig,
  type AuthHandler,
  type HandlerDeps,
  type HandlerDescription,
  type HandlerObserver,
  type HandlerReadiness,
  type Logger,
  type RevocationCheck,
} from '@authlayer/core';
import { configSourceOf } from '@authlayer/core/internal';
import { Connections } from './connections.js';
import type { DecisionListener } from './decision.js';
import { buildGeneration, type Generation } from './generation.js';
import { Holds, type EndHold, type HoldRequest } from './held/holds.js';
import type { ImportModule } from './load-mode.js';
import { consoleLogger } from './logger.js';
import { checkAccessTests } from './policy/access-tests.js';
import type { PolicyDiff } from './policy/candidate-judge.js';
import { reloadFailure, type ReloadEvent, type ReloadState } from './reload/reload-state.js';
import { watchFiles, type FileWatch } from './reload/watch-files.js';
import type { Revocation, RevokeOptions } from './revocation/revocation-entry.js';
import { readinessWith, revocationApi, type AuthReadiness } from './revocation/revocation-flow.js';

/** Options of `createEngine` (and of the adapters: `createAuthMiddleware`, the Fastify plugin); every one has a default. */
export interface EngineOptions {
  /** Where key material is read from. Default `process.env`. */
  readonly env?: HandlerDeps['env'];
  /** Default: one line per message on stderr. */
  readonly logger?: Logger;
  /** The clock, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** How the mode package is imported. Default: a dynamic `import()` by package name. */
  readonly importModule?: ImportModule;
  /** Counters the handler moves (key fetches, token cache), for metrics. Default: none. */
  readonly observe?: HandlerObserver;
  /**
   * Let a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) through
   * `auth` and `auth.optional` unauthenticated, for apps whose CORS handler comes after them.
   * Default `false`: a preflight is a request like any other (mount `cors()` before `auth`, or
   * mark the route `public`/`optional` in the `access` table).
   */
  readonly passPreflight?: boolean;
  /** Called once per authentication decision (audit line, metrics); see `AuthDecision`. */
  readonly onDecision?: DecisionListener;
  /**
   * Asked on every authenticated request, cache hits included, with the AuthContext and the
   * token's verified claims: `true` refuses it with 401 `token_revoked` (as does a hook that
   * throws). JWT mode asks it; API key mode has no tokens to revoke and does not.
   */
  readonly isRevoked?: RevocationCheck;
  /**
   * Applied to every config before it serves, the first and each reloaded one (the reference
   * service adds its own routes to the `access` table). Default: none.
   */
  readonly prepare?: (config: AuthConfig) => AuthConfig;
  /** Told of every reload, successful or failed (for metrics). Default: none. */
  readonly onReload?: (event: ReloadEvent) => void;
  /**
   * `access.candidate`: told of each request the candidate table judges otherwise than the live
   * one (the `authlayer_policy_diff_total{key, live, candidate}` counter). Default: none.
   */
  readonly onPolicyDiff?: (diff: PolicyDiff) => void;
}

/** {@link EngineOptions}, and what only an adapter gives. */
export interface EngineSetup extends EngineOptions {
  /** Asked before a reloaded generation serves, with it; throwing refuses the reload. Default: none. */
  readonly checkReload?: (next: Generation) => void;
}

/** The engine: the generation serving now, and what changes it or reads its state. */
export interface Engine {
  /** The generation that serves now: read once when a request arrives, which keeps it to the end. */
  current(): Generation;
  /** Replaces the config (or reads its file again); see `AuthMiddleware.reload`. Reloads run one at a time. */
  reload(config?: AuthConfig | object): Promise<ReloadState>;
  reloadState(): ReloadState;
  /** What the active handler says about itself (for `--check`); never a secret. */
  describe(): HandlerDescription;
  /** Whether the active handler can verify now, and the revocation list's state. */
  readiness(): AuthReadiness;
  revoke(entry: string, options?: RevokeOptions): Promise<Revocation>;
  unrevoke(entry: string): Promise<boolean>;
  revocations(): Promise<Revocation[]>;
  /**
   * Holds a request whose answer outlives it until its authority ends, then calls `end(reason)`
   * once; returns the release (see `AuthMiddleware.hold`).
   */
  hold(request: HoldRequest, end: EndHold): () => void;
  /** How many requests are held now. */
  held(): number;
  /** Releases the Redis connections and file watches, and forgets the holds. */
  close(): Promise<void>;
}

const ALWAYS_READY: HandlerReadiness = Object.freeze({ ready: true });
const NOTHING: HandlerDescription = Object.freeze({});

/**
 * Loads the mode packages of a config and builds its first generation; fails fast (ConfigError)
 * on a bad config or missing key material, as `createAuthMiddleware` documents.
 */
export async function createEngine(config: AuthConfig | object, options: EngineSetup = {}): Promise<Engine> {
  if (options.isRevoked !== undefined && typeof options.isRevoked !== 'function') {
    throw new TypeError('createAuthMiddleware: options.isRevoked must be a function');
  }
  const logger = options.logger ?? consoleLogger;
  const now = options.now ?? Date.now;
  const connections = new Connections(
    {
      env: options.env ?? process.env,
      logger,
      now,
      ...(options.observe === undefined ? {} : { observe: options.observe }),
      ...(options.isRevoked === undefined ? {} : { isRevoked: options.isRevoked }),
    },
    logger,
    now,
  );
  const prepare = (raw: AuthConfig | object): AuthConfig => {
    const parsed = isParsedAuthConfig(raw) ? raw : parseAuthConfig(raw);
    return options.prepare === undefined ? parsed : options.prepare(parsed);
  };
  const build = (next: AuthConfig) =>
    buildGeneration(next, {
      deps: connections.handlerDeps(next),
      importModule: options.importModule,
      onDecision: options.onDecision,
      onPolicyDiff: options.onPolicyDiff,
      passPreflight: options.passPreflight === true,
      limits: (config) => connections.limitsFor(config),
      revocation: (config, handlers) => connections.revocationFor(config, handlers),
    });
  const given = prepare(config);
  await checkAccessTests(given, now);
  const first = await build(given);
  const revocations = connections.revocationFlow?.store;
  // Asks the swap for the serving generation only when a request is held, after both exist.
  const held = new Holds({
    now,
    logger,
    onDecision: options.onDecision,
    current: () => swap.current(),
    isRevoked: (context) => revocations?.isRevoked(context) ?? false,
  });
  revocations?.onChange(() => held.revoked());
  const swap = createSwap(first, configSourceOf(given), {
    connections,
    prepare,
    build,
    logger,
    now,
    options,
    swapped: (next) => held.rejudge(next),
  });
  const revocation = revocationApi(connections.revocationFlow);
  return {
    current: swap.current,
    reload: swap.reload,
    reloadState: swap.state,
    describe: () => swap.current().loaded.handler.describe?.() ?? NOTHING,
    readiness: () =>
      readinessWith(swap.current().loaded.handler.readiness?.() ?? ALWAYS_READY, connections.revocationFlow),
    ...revocation,
    hold: (request, end) => held.hold(request, end),
    held: () => held.size,
    close: async () => {
      swap.close();
      held.clear();
      connections.close();
    },
  };
}

interface SwapDeps {
  readonly connections: Connections;
  readonly prepare: (raw: AuthConfig | object) => AuthConfig;
  readonly build: (config: AuthConfig) => Promise<Generation>;
  readonly logger: Logger;
  readonly now: () => number;
  readonly options: EngineSetup;
  /** Told of each generation swapped in, before the reload resolves (held requests are re-judged). */
  readonly swapped: (next: Generation) => void;
}

/**
 * The generation swap: a reload builds the next generation whole (its mode packages, key material,
 * checks) beside the serving one, then replaces it at once, or changes nothing and rejects. One
 * reload at a time; with `reload.watch`, the config file and its key files reload by themselves.
 */
function createSwap(first: Generation, firstSource: string | null, deps: SwapDeps) {
  const { connections, logger, now, options } = deps;
  let current = first;
  let source = firstSource;
  let state: ReloadState = { generation: 1, loadedAt: new Date(now()).toISOString(), lastReloadError: null };
  let watch: FileWatch | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  const swap = async (input: AuthConfig | object | undefined): Promise<ReloadState> => {
    let pool: { end(committed: boolean): void } | null = null;
    try {
      const next = input === undefined ? await loadConfig(sourceOrThrow(source)) : input;
      const prepared = deps.prepare(next);
      // access.tests: a generation whose policy tests fail never serves.
      await checkAccessTests(prepared, now);
      pool = connections.begin();
      const built = await deps.build(prepared);
      options.checkReload?.(built);
      current = built;
      pool.end(true);
      deps.swapped(built);
      source = configSourceOf(prepared) ?? source;
      state = { generation: state.generation + 1, loadedAt: new Date(now()).toISOString(), lastReloadError: null };
      logger.info(`config reloaded: generation ${state.generation} serves`);
      options.onReload?.({ result: 'ok', generation: state.generation });
      return state;
    } catch (error) {
      pool?.end(false);
      const line = reloadFailure(error, state.generation);
      state = { ...state, lastReloadError: line };
      logger.error(line);
      options.onReload?.({ result: 'failed', generation: state.generation, error: line });
      throw error;
    } finally {
      rewatch();
    }
  };
  const reload = (input?: AuthConfig | object): Promise<ReloadState> => {
    const run = queue.then(() => swap(input));
    queue = run.catch(() => undefined);
    return run;
  };
  function rewatch(): void {
    watch?.close();
    watch = null;
    if (!current.config.reload.watch || source === null) return;
    // A failed reload from a watch was logged and counted already.
    const files = [source, ...current.loaded.handlers.flatMap(keyFilesOfHandler)];
    watch = watchFiles([...new Set(files)], () => void reload().catch(() => undefined));
  }
  rewatch();
  return {
    current: () => current,
    reload,
    state: () => state,
    close: () => watch?.close(),
  };
}

/** The file `reload()` reads again: only a config read by `loadConfig` has one. */
function sourceOrThrow(source: string | null): string {
  if (source === null)
    throw new TypeError('auth.reload() needs a config: the serving one was not read from a file by loadConfig');
  return source;
}

const keyFilesOfHandler = (handler: AuthHandler): readonly string[] => handler.keyFiles ?? [];
