import type { AuthConfig, HandlerDeps, SenderConstraintConfig } from '@authlayer/core';
import { createMemoryReplayCache } from './replay-cache.js';
import { createSenderConstraint, type SenderConstraint } from './sender-constraint.js';

/**
 * The sender constraint of a token mode's handler, wired as every mode needs it: the public
 * origin from `resource.identifier`, the proxy's certificate header from `tls`, the replicas'
 * shared replay cache from `deps.replayCache`, and this process's own replay cache kept across
 * config reloads under `carryKey` (a new, empty one would take a replay). `null` when the mode
 * binds nothing.
 */
export function createModeSenderConstraint(
  carryKey: string,
  binding: SenderConstraintConfig,
  leewaySeconds: number,
  config: Pick<AuthConfig, 'resource' | 'tls'>,
  deps: Pick<HandlerDeps, 'logger' | 'replayCache' | 'carry'>,
  now: () => number,
): SenderConstraint | null {
  const local = deps.carry?.keep(carryKey, () => createMemoryReplayCache({ now }));
  return createSenderConstraint(
    {
      dpop: binding.dpop,
      dpopAlgorithms: binding.dpopAlgorithms,
      certificateBound: binding.certificateBound,
      leewaySeconds,
      resourceIdentifier: config.resource?.identifier ?? null,
      clientCertHeader: config.tls?.clientCertHeader ?? null,
    },
    {
      logger: deps.logger,
      now,
      ...(deps.replayCache === undefined ? {} : { replayCache: deps.replayCache }),
      ...(local === undefined ? {} : { local }),
    },
  );
}
