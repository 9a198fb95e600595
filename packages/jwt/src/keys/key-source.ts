import type { JwtProviderConfig } from '../config/jwt-section.js';
import { type HandlerObserver, type JwtAlgorithm, type KeyState, type Logger, type ReloadCarry } from '@authlayer/core';
import type { CryptoKey, JWTVerifyGetKey } from 'jose';
import { createRemoteKeySet, type JwksOptions } from './remote-key-set.js';
import { fromFile, fromVariable, loadStaticKeys } from './static-key.js';

/** What a key source needs from the handler's deps. */
export interface KeySourceDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly jwks?: JwksOptions;
  readonly observe?: HandlerObserver;
  /** Keeps a remote key set across reloads while its source is unchanged (see `ReloadCarry`). */
  readonly carry?: ReloadCarry;
}

/** The keys of one issuer, and what operators see of them. */
export interface KeySource {
  readonly getKey: JWTVerifyGetKey;
  /** `jwks_url`, `discovery`, `public_key_env` or `public_key_file`. */
  readonly kind: 'jwks_url' | 'discovery' | 'public_key_env' | 'public_key_file';
  /** The state of a remote key set; `null` for a static key (always usable). */
  state(): KeyState | null;
  /** Whether the keys may vouch for a token now, by time (a static key: always). */
  usable(): boolean;
  /** Starts a due fetch of a remote key set; nothing for a static key. */
  warm(): Promise<void>;
}

/**
 * The key resolver of one issuer (`auth.jwt`, or one entry of `auth.jwt.providers`): the remote
 * key set at `jwks_url` or named by the issuer's OpenID configuration (`discovery`), or the
 * static key (PEM public key or HMAC secret) in the variable that `public_key_env` names. The
 * resolver is only asked after the token's `alg` was checked against `algorithms`, and it never
 * looks at the header's `jku`, `x5u`, `jwk` or `x5c` (RFC 8725 §3.10).
 *
 * @param label - the config path for messages and log lines (`auth.jwt`, `auth.jwt.providers[0]`).
 * The config is one `assertModeConfig` accepted for jwt: exactly one source, an issuer for discovery.
 *
 * @throws ConfigError when the static key is unusable (see `loadStaticKeys`). An unreachable
 *   provider is not an error here: nothing is fetched before a token needs it.
 */
export async function createKeySource(
  jwt: JwtProviderConfig,
  deps: KeySourceDeps,
  label = 'auth.jwt',
): Promise<KeySource> {
  // Exactly one source is set, and discovery has an issuer: the config's rules (assertModeConfig).
  const kind = kindOf(jwt);
  if (kind === 'jwks_url' || kind === 'discovery') {
    const location = kind === 'discovery' ? { issuer: jwt.issuer as string } : { jwksUrl: jwt.jwksUrl as string };
    const settings = {
      ...deps.jwks,
      logger: deps.logger,
      now: deps.now ?? Date.now,
      staleMs: jwt.staleKeysSeconds * 1000,
      label: `${label}.${kind}`,
      ...(deps.observe === undefined ? {} : { observe: deps.observe }),
    };
    const make = () => createRemoteKeySet(location, settings);
    // One key set per source and settings: a reload that leaves them unchanged keeps its keys.
    const key = `jwt.remote-key-set:${JSON.stringify([location, settings.staleMs, deps.jwks ?? {}])}`;
    const remote = deps.carry?.keep(key, make) ?? make();
    return { getKey: remote.getKey, kind, state: remote.state, usable: remote.usable, warm: remote.warm };
  }
  const material =
    kind === 'public_key_env'
      ? fromVariable(jwt.publicKeyEnv as string, deps.env)
      : fromFile(jwt.publicKeyFile as string, `${label}.public_key_file`);
  const keys = await loadStaticKeys(material, jwt.algorithms, label);
  // The `alg` was checked against `algorithms` already, and there is a key for each of those.
  const getKey: JWTVerifyGetKey = (header) => keys.get(header.alg as JwtAlgorithm) as CryptoKey;
  return { getKey, kind, state: () => null, usable: () => true, warm: () => Promise.resolve() };
}

function kindOf(jwt: JwtProviderConfig): KeySource['kind'] {
  if (jwt.jwksUrl !== null) return 'jwks_url';
  if (jwt.discovery) return 'discovery';
  return jwt.publicKeyEnv !== null ? 'public_key_env' : 'public_key_file';
}
