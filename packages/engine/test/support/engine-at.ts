import { createCaptureLogger } from '@authlayer/testkit';
import type { AuthDecision } from '../../src/decision.js';
import { createEngine, type EngineSetup } from '../../src/engine.js';
import type { Generation } from '../../src/generation.js';
import { decide, type EngineRequest, type Outcome } from '../../src/request/decide.js';
import { RequestScope } from '../../src/request/scope.js';

// An engine as an adapter makes one, with API keys carrying the identities, a pinned clock and
// every decision recorded: the engine's order is run by the test itself, without HTTP.

export const KEYS = {
  admin: 'admin-key-0123456789abcdef',
  auditor: 'auditor-key-0123456789abcdef',
  plain: 'plain-key-0123456789abcdef',
} as const;
const env = { ADMIN_KEY: KEYS.admin, AUDITOR_KEY: KEYS.auditor, PLAIN_KEY: KEYS.plain };
export const API_KEYS = {
  mode: 'api_key',
  api_keys: {
    keys: [
      { name: 'admin', env_var: 'ADMIN_KEY', roles: ['admin'] },
      { name: 'auditor', env_var: 'AUDITOR_KEY', roles: ['auditor'] },
      { name: 'plain', env_var: 'PLAIN_KEY' },
    ],
  },
};
const roles = [
  { name: 'admin', permissions: ['invoke'] },
  { name: 'auditor', permissions: ['reports:read'] },
];
export const T = Date.UTC(2026, 10, 28, 12);

/** An engine for `config` (merged over API keys and roles), its decisions, log and clock. */
export async function engineAt(config: Record<string, unknown> = {}, setup: EngineSetup = {}) {
  const decisions: AuthDecision[] = [];
  const logger = createCaptureLogger();
  const clock = { now: T };
  const engine = await createEngine(
    { auth: API_KEYS, roles, ...config },
    { env, logger, now: () => clock.now, onDecision: (decision) => decisions.push(decision), ...setup },
  );
  return { engine, decisions, logger, clock };
}

/** A request as Node's `IncomingMessage` gives it: method, URL and lower-case headers. */
export function requestTo(method: string, url: string, headers: Record<string, string> = {}): EngineRequest {
  return { method, url, headers, socket: { remoteAddress: '192.0.2.7' } } as EngineRequest;
}

/** What an adapter does up to the outcome: the table's step, then `decide` for a flow. */
export async function judge(generation: Generation, request: EngineRequest, scope = new RequestScope(() => 'r-1')) {
  const path = (request.url ?? '/').split('?')[0]!;
  const step = generation.access(request.method, path, request, scope);
  if (step.kind === 'public') return { step: step.kind, outcome: null, scope };
  if (step.kind === 'denied') return { step: step.kind, outcome: step.outcome, scope };
  const outcome: Outcome = await decide(step.flow, request, scope);
  return { step: step.kind, outcome, scope };
}
