import { afterEach, describe, expect, it } from '@jest/globals';
import type { Engine } from '../src/engine.js';
import { decide } from '../src/request/decide.js';
import { RequestScope } from '../src/request/scope.js';
import { API_KEYS, engineAt, judge, KEYS, requestTo } from './support/engine-at.js';

// generation.ts and the swap in engine.ts: a config is built whole into a generation; a reload
// builds the next beside it and swaps it in at once, or changes nothing. A request keeps the
// generation it started with.

let open: Engine[] = [];
afterEach(async () => {
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});
async function made(config: Record<string, unknown>) {
  const result = await engineAt(config);
  open.push(result.engine);
  return result;
}
const status = (outcome: Awaited<ReturnType<typeof judge>>['outcome']) =>
  outcome === null ? 'public' : outcome.pass ? 200 : outcome.answer.status;

describe('Generation', () => {
  it('accessFor: what the table asks of a route, for documentation', async () => {
    const { engine } = await made({
      access: { 'GET /status': 'public', 'GET /me': 'optional', 'POST /invoke': { permissions: ['invoke'] } },
    });
    const generation = engine.current();
    expect([
      generation.accessFor('GET', '/status'),
      generation.accessFor('GET', '/me'),
      generation.accessFor('POST', '/invoke'),
      generation.accessFor('GET', '/other'),
    ]).toEqual([
      { authentication: 'none', mayRefuse: false },
      { authentication: 'optional', mayRefuse: false },
      { authentication: 'required', mayRefuse: true },
      { authentication: 'required', mayRefuse: false },
    ]);
  });

  it("step: a plan the adapter made (Fastify's, once per route) is acted on as access would", async () => {
    const { engine } = await made({ access: { 'POST /invoke': { permissions: ['invoke'] } } });
    const generation = engine.current();
    const request = requestTo('POST', '/invoke', { 'x-api-key': KEYS.plain });
    const scope = new RequestScope(() => 'r-1');
    const step = generation.step(generation.plan('POST', '/invoke', request), scope);
    expect(step.kind).toBe('flow');
    expect(scope.plan).not.toBeNull();
    if (step.kind !== 'flow') return;
    expect(await decide(step.flow, request, scope)).toMatchObject({ pass: false, answer: { status: 403 } });
  });

  it('resourceMetadata: null without resource; with it, the RFC 9728 document and its URL', async () => {
    expect((await made({})).engine.current().resourceMetadata()).toBeNull();
    const { engine } = await made({
      resource: { identifier: 'https://api.example/mcp' },
      access: { 'GET /reports': { scopes: ['reports:read'] } },
    });
    expect(engine.current().resourceMetadata()).toEqual({
      url: 'https://api.example/.well-known/oauth-protected-resource/mcp',
      document: expect.objectContaining({
        resource: 'https://api.example/mcp',
        scopes_supported: ['reports:read'],
        bearer_methods_supported: ['header'],
      }),
    });
  });
});

describe('the generation swap', () => {
  it('a reload swaps in the new table; a request that started before keeps the old generation', async () => {
    const { engine } = await made({ access: { 'GET /reports': 'public' } });
    const before = engine.current();
    const state = await engine.reload({ auth: API_KEYS, access: { 'GET /reports': { roles: ['auditor'] } } });
    expect(state).toMatchObject({ generation: 2, lastReloadError: null });
    expect(engine.current()).not.toBe(before);
    const request = () => requestTo('GET', '/reports', { 'x-api-key': KEYS.admin });
    expect(status((await judge(before, request())).outcome)).toBe('public');
    expect(status((await judge(engine.current(), request())).outcome)).toBe(403);
  });

  it('a reload that fails changes nothing: the same generation serves, the error is kept', async () => {
    const { engine, logger } = await made({ access: { 'GET /reports': 'public' } });
    const before = engine.current();
    await expect(
      engine.reload({ auth: { mode: 'api_key', api_keys: { keys: [{ name: 'x', env_var: 'UNSET_VAR' }] } } }),
    ).rejects.toMatchObject({ name: 'ConfigError' });
    expect(engine.current()).toBe(before);
    expect(engine.reloadState()).toMatchObject({ generation: 1, lastReloadError: expect.any(String) });
    expect(logger.text.join('\n')).not.toContain(KEYS.admin);
  });

  it('checkReload may refuse a generation before it serves', async () => {
    const refusals: number[] = [];
    const { engine } = await engineAt(
      {},
      {
        checkReload: (next) => {
          refusals.push(next.table.entries.length);
          throw new Error('the router has no such route');
        },
      },
    );
    open.push(engine);
    const before = engine.current();
    await expect(engine.reload({ auth: API_KEYS })).rejects.toThrow('the router has no such route');
    expect([engine.current() === before, refusals.length]).toEqual([true, 1]);
  });
});
