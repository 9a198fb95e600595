import type { AuthHandler } from '@authlayer/core';
import type { AuthDecision } from '@authlayer/express';
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The service's Prometheus metrics (contract, "Operations"), in a registry of their own. */
export interface ServiceMetrics {
  readonly registry: Registry;
  /**
   * Counts one authentication decision and its duration; `handler` (the serving one) says whether
   * the decision names a configured client (`AuthHandler.clientOf`: API keys).
   */
  observe(decision: AuthDecision, handler?: Pick<AuthHandler, 'clientOf'>): void;
  /** Counts one fetch of a remote key set (`ok` or `error`). */
  keyFetch(result: string): void;
  /** Counts one lookup in the cache of verified tokens (`hit` or `miss`). */
  tokenCache(result: string): void;
  /** Counts one config reload (`ok` or `failed`). */
  reload(event: { readonly result: string }): void;
  /** Counts one disagreement of `access.candidate` with the live table. */
  policyDiff(diff: { readonly key: string; readonly live: string; readonly candidate: string }): void;
  /** Where `authlayer_held_connections` reads its value (`auth.heldConnections`) when scraped. */
  holding(count: () => number): void;
  /** `GET /metrics`: the Prometheus text format. */
  readonly handler: RequestHandler;
}

/**
 * Makes the metrics: `authlayer_auth_decisions_total{method,outcome,reason}`,
 * `authlayer_auth_duration_seconds{method,outcome}` (histogram),
 * `authlayer_key_fetches_total{result}`, `authlayer_token_cache_total{result}`,
 * `authlayer_api_key_requests_total{client,outcome}`, `authlayer_config_reloads_total{result}`,
 * `authlayer_held_connections` (gauge: requests held by `auth.hold`), and Node's
 * default process metrics (`process_resident_memory_bytes`, ...).
 */
export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const decisions = new Counter({
    name: 'authlayer_auth_decisions_total',
    help: 'Authentication decisions, by method, outcome and reason (empty when allowed)',
    labelNames: ['method', 'outcome', 'reason'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'authlayer_auth_duration_seconds',
    help: 'Time from the start of authentication to its decision',
    labelNames: ['method', 'outcome'] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  const keyFetches = new Counter({
    name: 'authlayer_key_fetches_total',
    help: 'Fetches of a remote key set (JWKS), by result',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const tokenCache = new Counter({
    name: 'authlayer_token_cache_total',
    help: 'Lookups in the cache of verified tokens, by result',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const apiKeyRequests = new Counter({
    name: 'authlayer_api_key_requests_total',
    help: 'Requests with an API key, by client (a configured name; empty for an unknown key) and outcome',
    labelNames: ['client', 'outcome'] as const,
    registers: [registry],
  });
  const reloads = new Counter({
    name: 'authlayer_config_reloads_total',
    help: 'Config reloads (SIGHUP, reload.watch), by result',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const policyDiffs = new Counter({
    name: 'authlayer_policy_diff_total',
    help: 'Requests access.candidate judges otherwise than the live table, by key and each verdict (allowed or a reason)',
    labelNames: ['key', 'live', 'candidate'] as const,
    registers: [registry],
  });
  let heldCount = (): number => 0;
  new Gauge({
    name: 'authlayer_held_connections',
    help: 'Requests held open past their answer (WebSockets, streams) until their authority ends',
    registers: [registry],
    collect() {
      this.set(heldCount());
    },
  });
  return {
    registry,
    reload: ({ result }) => reloads.inc({ result }),
    policyDiff: (diff) => policyDiffs.inc({ ...diff }),
    holding: (count) => void (heldCount = count),
    observe: ({ method, outcome, reason, userId, durationMs }, handler) => {
      decisions.inc({ method, outcome, reason: reason ?? '' });
      // An end of a held request lasted as long as it was held: not a decision's duration.
      if (outcome !== 'ended') duration.observe({ method, outcome }, durationMs / 1000);
      // The handler names a client only once the credential matched a configured one (an API key's
      // name): the label's values are bounded by the config, whatever keys clients send.
      const client = handler?.clientOf?.({ method, userId });
      if (client !== undefined) apiKeyRequests.inc({ client, outcome });
    },
    keyFetch: (result) => keyFetches.inc({ result }),
    tokenCache: (result) => tokenCache.inc({ result }),
    handler: (_req, res, next) => {
      registry.metrics().then((text) => res.type(registry.contentType).send(text), next);
    },
  };
}
