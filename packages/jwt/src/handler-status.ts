import { resolve } from 'node:path';
import { redactUrl, type HandlerDescription, type HandlerReadiness, type KeyState } from '@authlayer/core';
import type { Provider } from './provider.js';

// From best to worst: the handler reports the worst state among its issuers.
const ORDER: readonly KeyState[] = ['fresh', 'stale', 'not_fetched', 'unavailable'];
const ALWAYS_READY: HandlerReadiness = Object.freeze({ ready: true });

/**
 * `/readyz` and `/healthz` for the JWT handler: ready when every issuer can verify now (a
 * static key, or a key set that is fresh or stale within `stale_keys_seconds`); `keys` is the
 * worst state among the remote key sets (absent when every key is static). Each call also starts
 * a due fetch in the background, so a readiness probe alone brings a fresh instance up.
 */
export function readinessOf(providers: readonly Provider[]): HandlerReadiness {
  let worst: KeyState | null = null;
  for (const { keys } of providers) {
    // Errors are logged by the key set; the probe only reports.
    void keys.warm();
    const state = keys.state();
    if (state !== null && (worst === null || ORDER.indexOf(state) > ORDER.indexOf(worst))) worst = state;
  }
  if (worst === null) return ALWAYS_READY;
  return { ready: worst === 'fresh' || worst === 'stale', keys: worst };
}

/**
 * What `--check` shows: each issuer with its key source and key state, and the variables that
 * hold key material, by NAME with whether they are set (never a value).
 */
export function describeProviders(providers: readonly Provider[]): HandlerDescription {
  const variables = providers.flatMap(({ config }) => {
    if (config.publicKeyEnv !== null) return [config.publicKeyEnv];
    return config.publicKeyFile === null ? [] : [resolve(config.publicKeyFile)];
  });
  return {
    // The handler exists, so each variable was read and held a usable key at start-up.
    key_material: Object.fromEntries(variables.map((name) => [name, 'set'])),
    issuers: providers.map(({ config, label, keys }) => ({
      config: label,
      issuer: config.issuer,
      key_source: keys.kind,
      keys: keys.state() ?? 'static',
      trust_roles: config.trustRoles,
    })),
  };
}

/**
 * The start-up line's part: where the keys come from, by redacted URL or variable name; with
 * `providers`, each issuer with its source.
 *
 * @example
 * summarizeProviders(providers, false); // 'the discovery document of issuer https://idp.example'
 */
export function summarizeProviders(providers: readonly Provider[], several: boolean): string {
  if (!several) return sourceOf(providers[0] as Provider);
  return providers
    .map((provider) => `issuer ${redactUrl(String(provider.config.issuer))} (${sourceOf(provider)})`)
    .join(', ');
}

function sourceOf({ config, keys }: Provider): string {
  if (keys.kind === 'jwks_url') return `jwks_url ${redactUrl(String(config.jwksUrl))}`;
  if (keys.kind === 'discovery') return `the discovery document of issuer ${redactUrl(String(config.issuer))}`;
  if (keys.kind === 'public_key_file') return `file ${resolve(String(config.publicKeyFile))}`;
  return `environment variable ${String(config.publicKeyEnv)}`;
}
