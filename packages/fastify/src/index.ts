// @authlayer/fastify: the Fastify glue around @authlayer/engine; every decision is the engine's.
import { authlayer } from './plugin.js';

export { authlayer };
export default authlayer;
export type { AuthlayerApi, AuthlayerOptions } from './plugin.js';
export type { AccessRuleInput } from './guards.js';
export type {
  AuthDecision,
  AuthInfoFields,
  AuthReadiness,
  DecisionListener,
  DecisionOutcome,
  OpenApiSecurity,
  PolicyDiff,
  PolicyVerdict,
  TraceEntry,
  ReloadEvent,
  ReloadState,
  RequestAuth,
  Revocation,
  RevokeOptions,
} from '@authlayer/engine';
