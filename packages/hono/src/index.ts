// @authlayer/hono: the Hono glue around @authlayer/engine on web-standard Request and Response;
// every decision is the engine's.
import { authlayer } from './middleware.js';

export { authlayer };
export default authlayer;
export type { AuthlayerMembers, AuthlayerMiddleware, AuthlayerOptions, RoutedApp } from './middleware.js';
export type { AccessRuleInput } from './request.js';
export type { HonoRoute } from './routes.js';
export type {
  AuthDecision,
  AuthReadiness,
  DecisionListener,
  DecisionOutcome,
  ReloadEvent,
  ReloadState,
  Revocation,
  RevokeOptions,
} from '@authlayer/engine';
