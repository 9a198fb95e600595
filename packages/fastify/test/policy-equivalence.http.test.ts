import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createAuthMiddleware, createPolicyEvaluator, type AuthDecision, type PolicyRequest } from '@authlayer/express';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import authlayer from '../src/index.js';

// The runner cannot drift from the engine: for a corpus of callers x routes x methods of a table
// of every rule field, plus MCP messages, `authlayer test`'s evaluator (callers taken as verified)
// gives the status and reason that running Express and Fastify apps answer over real HTTP, with
// real credentials (API keys from env, JWTs signed by the testkit's provider, verified by its JWKS).

const ACCESS = {
  default: 'deny',
  'GET /health': 'public',
  'GET /feed': 'optional',
  'GET /me': 'authenticated',
  'GET /reports/:id': { roles: ['admin'] },
  'GET /search': { scopes: ['search:read'] },
  'POST /reports': { permissions: ['reports:write'] },
  'GET /billing': { claims: { plan: ['pro', 'enterprise'] } },
  'DELETE /reports/:id': { roles: ['admin'], acr: ['mfa'], max_age: 300 },
  'GET /tenants/:tenant/files': { tenant_param: 'tenant' },
  'GET /exports': { any: [{ roles: ['admin'] }, { scopes: ['export'] }] },
  'GET /jwt-only': { roles: ['admin'], modes: ['jwt'] },
  '* /internal/*rest': 'deny',
  'POST /mcp': 'authenticated',
  'MCP tools/call delete_file': { scopes: ['files:delete'] },
  'MCP tools/call read_file': 'authenticated',
  'MCP tools/call *': 'deny',
};
/** Every route of the table, as each framework spells it. */
const ROUTES = [
  ['/health'],
  ['/feed'],
  ['/me'],
  ['/reports/:id'],
  ['/search'],
  ['/reports'],
  ['/billing'],
  ['/tenants/:tenant/files'],
  ['/exports'],
  ['/jwt-only'],
  ['/internal/*rest', '/internal/*'],
] as const;
const PATHS = [
  '/health',
  '/feed',
  '/me',
  '/reports/7',
  '/search',
  '/reports',
  '/billing',
  '/tenants/acme/files',
  '/tenants/other/files',
  '/exports',
  '/jwt-only',
  '/internal/users',
  '/nowhere',
];
const METHODS = ['GET', 'POST', 'DELETE'] as const;
const MESSAGES = [
  { method: 'tools/call', name: 'delete_file', arguments: { path: '/x' } },
  { method: 'tools/call', name: 'read_file', arguments: { path: '/x' } },
  { method: 'tools/call', name: 'run_shell' },
  { method: 'tools/list' },
];
const KEYS = { READER_API_KEY: 'reader-key-0123456789abcdef', ACME_API_KEY: 'acme-key-0123456789abcdef' };

let idp: TestIdentityProvider;
let at: number;
beforeAll(async () => {
  idp = await startTestIdentityProvider();
  at = Math.floor(Date.now() / 1000);
});
afterAll(async () => idp.close());

/** A caller: as the evaluator takes it (verified), and the real credential's headers. */
interface Caller {
  readonly name: string;
  readonly verified: Parameters<Awaited<ReturnType<typeof createPolicyEvaluator>>['evaluate']>[0];
  readonly headers: Record<string, string>;
}

async function callersOf(): Promise<Caller[]> {
  const jwt = async (name: string, claims: Record<string, unknown>): Promise<Caller> => ({
    name,
    verified: { jwt: claims },
    headers: { authorization: `Bearer ${await idp.signToken(claims)}` },
  });
  return [
    { name: 'anonymous', verified: 'anonymous', headers: {} },
    { name: 'api_key reader', verified: { api_key: 'reader' }, headers: { 'x-api-key': KEYS.READER_API_KEY } },
    { name: 'api_key acme-bot', verified: { api_key: 'acme-bot' }, headers: { 'x-api-key': KEYS.ACME_API_KEY } },
    await jwt('jwt admin', {
      sub: 'ada',
      roles: ['admin'],
      scope: 'search:read export files:delete',
      acr: 'mfa',
      auth_time: at - 10,
      plan: 'pro',
    }),
    await jwt('jwt stale admin', { sub: 'sam', roles: ['admin'], acr: 'mfa', auth_time: at - 3600 }),
    await jwt('jwt reader', { sub: 'bob', roles: ['reader'], scope: 'search:read', plan: 'free' }),
    await jwt('jwt acme', { sub: 'tia', tenant: 'acme', scope: 'export', plan: 'enterprise' }),
    await jwt('jwt writer', { sub: 'wes', roles: ['writer'], scope: 'files:read' }),
  ];
}

function rawConfig() {
  const raw = idp.config('jwt', {
    auth: {
      api_keys: {
        keys: [
          { name: 'reader', env_var: 'READER_API_KEY', roles: ['reader'] },
          { name: 'acme-bot', env_var: 'ACME_API_KEY', roles: ['writer'], tenant_id: 'acme' },
        ],
      },
      jwt: { claims: { tenant_id: 'tenant' } },
    },
    roles: [{ name: 'writer', permissions: ['reports:write'] }],
    mcp: { endpoint: '/mcp' },
    access: ACCESS,
  });
  return { ...raw, auth: { ...(raw.auth as object), mode: ['api_key', 'jwt'] } };
}

/** An app of either framework: its URL, the decisions it reported, and how to close it. */
interface Running {
  readonly url: string;
  readonly decisions: AuthDecision[];
  close(): Promise<void>;
}

const options = (decisions: AuthDecision[], now: () => number) => ({
  env: { ...idp.env, ...KEYS },
  now,
  logger: createCaptureLogger(),
  onDecision: (decision: AuthDecision) => void decisions.push(decision),
});

async function runExpress(config: object, now: () => number): Promise<Running> {
  const decisions: AuthDecision[] = [];
  const auth = await createAuthMiddleware(config, options(decisions, now));
  const app = express();
  app.use(auth.access);
  for (const [path] of ROUTES) app.all(path, (_req, res) => res.json({ ok: true }));
  app.post('/mcp', (_req, res) => res.json({ jsonrpc: '2.0', id: 1, result: {} }));
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    decisions,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await auth.close();
    },
  };
}

async function runFastify(config: object, now: () => number): Promise<Running> {
  const decisions: AuthDecision[] = [];
  const app: FastifyInstance = Fastify();
  await app.register(authlayer, { config, ...options(decisions, now) });
  for (const [path, fastifyPath] of ROUTES) {
    app.route({ method: [...METHODS], url: fastifyPath ?? path, handler: async () => ({ ok: true }) });
  }
  app.post('/mcp', async () => ({ jsonrpc: '2.0', id: 1, result: {} }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    decisions,
    close: () => app.close(),
  };
}

/** One request over real HTTP: its status, and the reason of the decision it made (if any). */
async function answerOf(
  running: Running,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) {
  const before = running.decisions.length;
  const res = await fetch(running.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
  await res.arrayBuffer();
  const made = running.decisions.slice(before);
  expect(made.length).toBeLessThanOrEqual(1);
  return { status: res.status, reason: made[0]?.reason ?? null };
}

describe('authlayer test gives what Express and Fastify answer', () => {
  it('every request of the corpus: the same status and reason, over real HTTP with real credentials', async () => {
    const raw = rawConfig();
    const now = () => at * 1000 + 500;
    const evaluator = await createPolicyEvaluator(parseAuthConfig(raw), { now });
    const apps = [await runExpress(raw, now), await runFastify(raw, now)];
    const callers = await callersOf();
    const corpus: { case: string; request: PolicyRequest; method: string; path: string; body?: string }[] = [];
    for (const method of METHODS) {
      for (const path of PATHS)
        corpus.push({ case: `${method} ${path}`, request: { request: `${method} ${path}` }, method, path });
    }
    for (const message of MESSAGES) {
      const { method, ...params } = message;
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
      corpus.push({
        case: `MCP ${method} ${message.name ?? ''}`,
        request: { mcp: message },
        method: 'POST',
        path: '/mcp',
        body,
      });
    }
    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const seen = new Set<string>();
    let compared = 0;
    try {
      for (const caller of callers) {
        for (const each of corpus) {
          const verdict = await evaluator.evaluate(caller.verified, each.request);
          const expected = { case: `${caller.name}: ${each.case}`, status: verdict.status, reason: verdict.reason };
          const headers = { ...caller.headers, ...(each.body === undefined ? {} : mcpHeaders) };
          for (const running of apps) {
            const answer = await answerOf(running, each.method, each.path, headers, each.body);
            expect({ case: expected.case, ...answer }).toEqual(expected);
            compared += 1;
          }
          seen.add(`${verdict.status} ${verdict.reason}`);
        }
      }
    } finally {
      await Promise.all(apps.map((running) => running.close()));
    }
    // The corpus reaches every kind of verdict, so that agreeing means something.
    expect(corpus.length * callers.length).toBeGreaterThanOrEqual(300);
    expect(compared).toBe(corpus.length * callers.length * 2);
    expect([...seen].sort()).toEqual(
      expect.arrayContaining([
        '200 null',
        '401 credentials_missing',
        '401 step_up_required',
        '403 role_missing',
        '403 scope_missing',
        '403 permission_missing',
        '403 claim_mismatch',
        '403 tenant_mismatch',
        '403 route_denied',
      ]),
    );
  });
});
