import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { call as send } from './support/call.js';
import authlayer from '../src/index.js';

// A request to an MCP server is judged by the plugin's three hooks (`onRequest`, `preParsing`,
// `preValidation`). A reload that lands between them must not judge one request by two configs:
// the request keeps the generation it arrived under. An app hook that runs after the plugin's
// `onRequest` reloads on a marked request, the sharpest form of a reload that lands mid-request.
const IDENTIFIER = 'https://mcp.example.com/mcp';
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_forecast' } };

let idp: TestIdentityProvider;
let app: FastifyInstance;
let generations: { first: object; second: object };

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  const configOf = (forecast: unknown) => {
    const config = idp.config('jwt', {
      access: { 'POST /mcp': 'authenticated', 'MCP tools/call get_forecast': forecast },
      mcp: { endpoint: '/mcp' },
    }) as { auth: { jwt: object } };
    return {
      ...config,
      auth: { ...config.auth, jwt: { ...config.auth.jwt, audience: null } },
      resource: { identifier: IDENTIFIER },
    };
  };
  generations = { first: configOf({ scopes: ['weather:read'] }), second: configOf('deny') };
  app = Fastify();
  await app.register(authlayer, { config: generations.first, logger: createCaptureLogger() });
  app.addHook('onRequest', async (request) => {
    if (request.headers['x-reload-now'] === 'yes') await app.authlayer.reload(generations.second);
  });
  app.post('/mcp', async () => ({ ok: true }));
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await idp.close();
});

const post = async (headers: Record<string, string> = {}) =>
  send(app, {
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${await idp.signToken({ sub: 'user-1', aud: IDENTIFIER, scope: 'weather:read' })}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify(call),
  });

describe('a reload between the plugin hooks of one MCP request', () => {
  it('judges the request by the config it arrived under, and the next one by the new config', async () => {
    expect((await post()).statusCode).toBe(200);
    // Arrived under the first config (the tool needs weather:read, which the token has); the
    // second config (the tool denied) starts serving while this request is between hooks.
    expect((await post({ 'x-reload-now': 'yes' })).statusCode).toBe(200);
    expect(app.authlayer.reloadState().generation).toBe(2);
    const next = await post();
    expect(next.statusCode).toBe(403);
    expect(next.json()).toMatchObject({ error: 'forbidden' });
  });
});
