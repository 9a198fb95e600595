import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseYaml } from '@authlayer/core';
import { createAuthMiddleware, requireAccess } from '@authlayer/express';
import {
  createCaptureLogger,
  createDpopKey,
  startTestIdentityProvider,
  type TestIdentityProvider,
} from '@authlayer/testkit';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import authlayer from '../src/index.js';

// MCP authorization as the specification reads on 2026-07-28, on both adapters: a fixture shaped
// like the conformance suite's server (a tool, a static resource, a template resource and a
// prompt, each with its scope), configured from YAML alone, and raw JSON-RPC for every check.

const IDENTIFIER = 'https://mcp.example.com/mcp';
const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const TEMPLATE = 'test://template/123/data';

const yaml = (idp: TestIdentityProvider, extra = '') => `
auth:
  mode: jwt
  jwt:
    jwks_url: ${idp.jwksUrl}
    issuer: ${idp.issuer}
    algorithms: [RS256]
    dpop: allowed
resource:
  identifier: ${IDENTIFIER}
mcp:
  endpoint: /mcp
scopes:
  implies:
    "mcp:admin": ["mcp:tools:write"]
    "mcp:tools:write": ["mcp:tools"]
access:
  "POST /mcp": authenticated
  "GET /scoped": { scopes: [reports:read, offline_access] }
  "GET /guarded": authenticated
  "MCP tools/call test-tool": { scopes: [mcp:tools] }
  "MCP tools/call admin-tool": { scopes: [mcp:admin:tools], roles: [admin] }
  "MCP tools/call *": deny
  "MCP resources/read test://static": { scopes: [mcp:resources:read] }
  "MCP resources/read ${TEMPLATE}": { scopes: [mcp:resources:read, "mcp:resources:template:123"] }
  "MCP prompts/get test-prompt": { scopes: [mcp:prompts] }
${extra}`;

interface Served {
  readonly name: string;
  readonly url: string;
  readonly seen: { auth: unknown; raw: unknown }[];
  close(): Promise<void>;
}

/** The fixture behind Express: every handler answers a JSON-RPC result. */
async function serveExpress(config: unknown): Promise<Served> {
  const auth = await createAuthMiddleware(config as object, { logger: createCaptureLogger() });
  const seen: Served['seen'] = [];
  const app = express();
  app.use(auth.access);
  app.post('/mcp', (req, res) => {
    seen.push({ auth: req.auth, raw: req.auth });
    res.json({ jsonrpc: '2.0', id: (req.body as { id?: unknown }).id ?? null, result: {} });
  });
  for (const path of ['/scoped', '/guarded']) {
    app.get(path, requireAccess({ scopes: ['mcp:tools'] }), (_req, res) => void res.json({ ok: true }));
  }
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    name: 'express',
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await auth.close();
    },
  };
}

/** The same fixture behind Fastify; the handler writes to `reply.raw`, as the SDK's transport does. */
async function serveFastify(config: unknown): Promise<Served> {
  const app: FastifyInstance = Fastify();
  await app.register(authlayer, { config: config as object, logger: createCaptureLogger() });
  const seen: Served['seen'] = [];
  app.post('/mcp', (request, reply) => {
    seen.push({ auth: request.auth, raw: (request.raw as { auth?: unknown }).auth });
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'application/json' });
    reply.raw.end(JSON.stringify({ jsonrpc: '2.0', id: (request.body as { id?: unknown }).id ?? null, result: {} }));
  });
  const guard = app.authlayer.requireAccess({ scopes: ['mcp:tools'] });
  app.get('/scoped', async () => ({ ok: true }));
  app.get('/guarded', { preHandler: guard }, async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    name: 'fastify',
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    seen,
    close: () => app.close(),
  };
}

let idp: TestIdentityProvider;
const servers: Served[] = [];
const judging: Served[] = [];

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  const config = parseYaml(yaml(idp));
  const roundFour = parseYaml(
    yaml(idp)
      .replace('  endpoint: /mcp', '  endpoint: /mcp\n  challenge_scopes: token_and_required\n  batches: judge')
      .replace(`  identifier: ${IDENTIFIER}`, `  identifier: ${IDENTIFIER}\n  audience_strict: true`),
  );
  servers.push(await serveExpress(config), await serveFastify(config));
  judging.push(await serveExpress(roundFour), await serveFastify(roundFour));
});

afterAll(async () => {
  for (const served of [...servers, ...judging]) await served.close();
  await idp.close();
});

const token = (claims: Record<string, unknown> = {}) =>
  idp.signToken({ sub: 'user-1', aud: IDENTIFIER, scope: 'openid', ...claims });

async function post(
  served: Served,
  body: unknown,
  claims?: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${served.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await token(claims)}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

const rpc = (method: string, params: Record<string, unknown>, id = 1) => ({ jsonrpc: '2.0', id, method, params });
const tool = (name: string) => rpc('tools/call', { name, arguments: {} });
const read = (uri: string) => rpc('resources/read', { uri });
const insufficient = (description: string, scopes: string) =>
  `Bearer realm="authlayer", error="insufficient_scope", error_description="${description}", scope="${scopes}", resource_metadata="${METADATA}"`;

describe.each(['express', 'fastify'])('MCP authorization as the specification reads, on %s', (name) => {
  const served = () => servers.find((each) => each.name === name)!;

  it('challenges a tool, a static resource, a template resource and a prompt with the scopes each needs, not the token', async () => {
    const cases: [unknown, string, string][] = [
      [tool('test-tool'), 'the scope mcp:tools is required', 'mcp:tools'],
      [read('test://static'), 'the scope mcp:resources:read is required', 'mcp:resources:read'],
      [
        read(TEMPLATE),
        'the scopes mcp:resources:read, mcp:resources:template:123 are required',
        'mcp:resources:read mcp:resources:template:123',
      ],
      [rpc('prompts/get', { name: 'test-prompt' }), 'the scope mcp:prompts is required', 'mcp:prompts'],
    ];
    for (const [body, description, scopes] of cases) {
      const res = await post(served(), body, { scope: 'openid offline_access' });
      expect([res.status, res.challenge]).toEqual([403, insufficient(description, scopes)]);
    }
    // The template needs both: holding one, the challenge still names all it needs.
    const partial = await post(served(), read(TEMPLATE), { scope: 'mcp:resources:read' });
    expect(partial.challenge).toBe(
      insufficient('the scope mcp:resources:template:123 is required', 'mcp:resources:read mcp:resources:template:123'),
    );
    // The retry with the scopes goes through.
    expect(
      (await post(served(), read(TEMPLATE), { scope: 'mcp:resources:read mcp:resources:template:123' })).status,
    ).toBe(200);
  });

  it('answers a plain 403 when a role is missing too: no scope would let the caller in', async () => {
    const res = await post(served(), tool('admin-tool'), { scope: 'openid' });
    expect([res.status, res.challenge, res.body.message]).toEqual([403, null, 'the role admin is required']);
  });

  it('grants the scopes a broader scope implies, transitively (scopes.implies)', async () => {
    expect((await post(served(), tool('test-tool'), { scope: 'mcp:admin' })).status).toBe(200);
    expect((await post(served(), tool('test-tool'), { scope: 'mcp:tools:write' })).status).toBe(200);
    // On routes and guards too.
    const guarded = await fetch(`${served().url}/guarded`, {
      headers: { authorization: `Bearer ${await token({ scope: 'mcp:admin' })}` },
    });
    expect(guarded.status).toBe(200);
  });

  it('reads scopes from scp (a list or a string) when the token has no scope', async () => {
    expect((await post(served(), tool('test-tool'), { scope: undefined, scp: ['mcp:tools'] })).status).toBe(200);
    expect((await post(served(), tool('test-tool'), { scope: undefined, scp: 'openid mcp:tools' })).status).toBe(200);
  });

  it('refuses a batch with 400 and a JSON-RPC -32600 before judging any message', async () => {
    const res = await post(served(), [tool('test-tool'), tool('test-tool')], { scope: 'mcp:tools' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: batches are not supported' },
    });
  });

  it('compares aud as a URI: case of scheme and host, default port, one trailing slash; no prefix', async () => {
    for (const aud of [
      'HTTPS://MCP.EXAMPLE.COM/mcp',
      'https://mcp.example.com:443/mcp/',
      ['https://other.example', `${IDENTIFIER}/`],
    ]) {
      expect((await post(served(), tool('test-tool'), { aud, scope: 'mcp:tools' })).status).toBe(200);
    }
    for (const aud of [
      'https://mcp.example.com/mcp/tools',
      'https://mcp.example.com/',
      'https://mcp.example.com/MCP',
    ]) {
      expect((await post(served(), tool('test-tool'), { aud, scope: 'mcp:tools' })).status).toBe(401);
    }
  });

  it('puts resource_metadata on a route 403 for want of scopes, never offline_access in it', async () => {
    const res = await fetch(`${served().url}/scoped`, { headers: { authorization: `Bearer ${await token()}` } });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      insufficient('the scopes reports:read, offline_access are required', 'reports:read'),
    );
  });

  it('challenges a DPoP-bound token with the DPoP scheme', async () => {
    const key = await createDpopKey();
    const bound = await token({ cnf: { jkt: key.jkt }, scope: 'openid' });
    const proof = await key.proof({ method: 'POST', url: IDENTIFIER, token: bound });
    const res = await fetch(`${served().url}/mcp`, {
      method: 'POST',
      headers: { authorization: `DPoP ${bound}`, dpop: proof, 'content-type': 'application/json' },
      body: JSON.stringify(tool('test-tool')),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^DPoP realm="authlayer", error="insufficient_scope", .*scope="mcp:tools", resource_metadata=/,
    );
  });

  it('serves the RFC 9728 document itself, with every scope a key needs and no offline_access', async () => {
    const res = await fetch(`${served().url}/.well-known/oauth-protected-resource/mcp`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as { resource: string; scopes_supported: string[] };
    expect(document.resource).toBe(IDENTIFIER);
    expect([...document.scopes_supported].sort()).toEqual([
      'mcp:admin:tools',
      'mcp:prompts',
      'mcp:resources:read',
      'mcp:resources:template:123',
      'mcp:tools',
      'reports:read',
    ]);
  });

  it('hands the handler the AuthInfo on the request, on Fastify on request.raw too', async () => {
    served().seen.length = 0;
    await post(served(), tool('test-tool'), { scope: 'mcp:tools', client_id: 'agent' });
    const { auth, raw } = served().seen[0]!;
    expect(raw).toBe(auth);
    expect((auth as { clientId: string }).clientId).toBe('agent');
  });

  it('refuses with audience_strict a token also for another audience', async () => {
    const strict = judging.find((each) => each.name === name)!;
    const res = await post(strict, tool('test-tool'), {
      aud: [IDENTIFIER, 'https://other.example'],
      scope: 'mcp:tools',
    });
    const sentence = 'the token is also for another audience';
    expect([res.status, res.body]).toEqual([401, { error: 'unauthorized', message: sentence }]);
    expect(res.challenge).toContain(`error="invalid_token", error_description="${sentence}"`);
    expect((await post(strict, tool('test-tool'), { aud: [`${IDENTIFIER}/`], scope: 'mcp:tools' })).status).toBe(200);
  });

  it('keeps round 4 on request: the token scopes in the challenge, a batch judged per message', async () => {
    const old = judging.find((each) => each.name === name)!;
    const res = await post(old, tool('test-tool'), { scope: 'openid offline_access files:read' });
    expect(res.challenge).toBe(insufficient('the scope mcp:tools is required', 'openid files:read mcp:tools'));
    expect((await post(old, [tool('test-tool'), tool('test-tool')], { scope: 'mcp:tools' })).status).toBe(200);
  });
});
