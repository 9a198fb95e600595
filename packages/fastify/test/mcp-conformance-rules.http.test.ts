import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseYaml } from '@authlayer/core';
import { createAuthMiddleware } from '@authlayer/express';
import {
  createCaptureLogger,
  createDpopKey,
  startTestIdentityProvider,
  type TestIdentityProvider,
} from '@authlayer/testkit';
import Fastify from 'fastify';
import authlayer from '../src/index.js';
import { serveExpress, serveFastify, type RouteSpec, type Served } from './support/both.js';
import { parseChallenge, probe, rpc } from './support/conformance-probe.js';
import { jwtYaml } from './support/conformance-server.js';

// Rules of "MCP authorization as the specification now reads" that had a test on neither
// adapter: scopes.implies refused at start-up and used by route keys, a configured
// claims.scopes ahead of scope and scp, the plain 403 when claims or deny fail too, and the
// DPoP scheme on a step-up challenge. The same config and requests on Express and Fastify.

const IDENTIFIER = 'https://mcp.example.com/mcp';
const DOCUMENT = '/.well-known/oauth-protected-resource/mcp';
const ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/files' },
  { method: 'POST', path: '/mcp' },
];
/** The app that serves the document itself (on Fastify the plugin's own route is absent then). */
const OWN_ROUTES: readonly RouteSpec[] = [...ROUTES, { method: 'GET', path: DOCUMENT }];

const yaml = (
  idp: TestIdentityProvider,
  claims = '',
  implies = '{ "files:admin": ["files:write"], "files:write": ["files:read"] }',
) => `
${jwtYaml(idp, claims)}
resource:
  identifier: ${IDENTIFIER}
mcp:
  endpoint: /mcp
scopes:
  implies: ${implies}
access:
  "GET /files": { scopes: ["files:read"] }
  "POST /mcp": authenticated
  "MCP tools/call gold": { claims: { "org.tier": [gold] }, scopes: ["files:read"] }
  "MCP tools/call locked": { scopes: ["files:read"] }
  "MCP tools/call lock*": deny
  "MCP tools/call stepped": { acr: ["urn:mfa"] }
`;

let idp: TestIdentityProvider;
const served = new Map<string, Served>();
const scoped = new Map<string, Served>();
const appServed = new Map<string, Served>();

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  const config = parseYaml(yaml(idp)) as object;
  const byPath = parseYaml(yaml(idp, '    claims: { scopes: perms.granted }')) as object;
  served.set('express', await serveExpress(config, ROUTES)).set('fastify', await serveFastify(config, ROUTES));
  scoped.set('express', await serveExpress(byPath, ROUTES)).set('fastify', await serveFastify(byPath, ROUTES));
  const own = parseYaml(
    yaml(idp).replace(`identifier: ${IDENTIFIER}`, `identifier: ${IDENTIFIER}\n  serve_metadata: false`) +
      `  "GET ${DOCUMENT}": public\n`,
  ) as object;
  appServed.set('express', await serveExpress(own, OWN_ROUTES)).set('fastify', await serveFastify(own, OWN_ROUTES));
});
afterAll(async () => {
  for (const server of [...served.values(), ...scoped.values(), ...appServed.values()]) await server.close();
  await idp.close();
});

const bearer = async (claims: Record<string, unknown>) => ({
  authorization: `Bearer ${await idp.signToken({ sub: 'u', aud: IDENTIFIER, ...claims })}`,
});

async function files(server: Served, claims: Record<string, unknown>) {
  const res = await fetch(`${server.url}/files`, { headers: await bearer(claims) });
  return [res.status, parseChallenge(res.headers.get('www-authenticate')).params.scope ?? null];
}

/** Starts `config` on the adapter and returns the start-up error's message. */
async function startUpError(adapter: string, config: object): Promise<string> {
  const logger = createCaptureLogger();
  const start =
    adapter === 'express'
      ? createAuthMiddleware(config, { logger })
      : Fastify()
          .register(authlayer, { config, logger })
          .ready()
          .then(() => undefined);
  return start.then(
    () => 'started',
    (error: Error) => error.message,
  );
}

describe.each(['express', 'fastify'])('MCP rules of the specification, on %s', (adapter) => {
  const tool = (name: string) => rpc('tools/call', { name, arguments: {} });
  const mcp = (body: unknown, headers: Record<string, string>) =>
    probe(`${served.get(adapter)!.url}/mcp`, body, headers);

  it('fails start-up on a scopes.implies cycle or a name that is no scope, naming it', async () => {
    const cycle = parseYaml(yaml(idp, '', '{ a: [b], b: [a] }')) as object;
    expect(await startUpError(adapter, cycle)).toContain('scopes.implies.a: is part of a cycle: a implies b implies a');
    const notScope = parseYaml(yaml(idp, '', '{ admin: ["files write"] }')) as object;
    expect(await startUpError(adapter, notScope)).toContain('scopes.implies.admin[0]: must be a scope');
  });

  it('grants what a scope implies on a route key too, and challenges for the scope as the rule writes it', async () => {
    expect(await files(served.get(adapter)!, { scope: 'files:admin' })).toEqual([200, null]);
    expect(await files(served.get(adapter)!, { scope: 'openid' })).toEqual([403, 'files:read']);
  });

  it('reads scopes from a configured claims.scopes path ahead of scope and scp', async () => {
    const server = scoped.get(adapter)!;
    expect(await files(server, { perms: { granted: ['files:read'] }, scope: 'openid' })).toEqual([200, null]);
    expect(await files(server, { scope: 'files:read', scp: ['files:read'] })).toEqual([403, 'files:read']);
  });

  it('answers a plain 403 when claims or a deny fail besides the scopes: no scope would help', async () => {
    for (const [name, message] of [
      ['gold', 'the claim org.tier does not have an accepted value'],
      ['locked', 'this route is closed to every caller'],
    ]) {
      const res = await mcp(tool(name!), await bearer({ scope: 'openid' }));
      expect([res.status, res.challenge, (res.body as { message: string }).message]).toEqual([403, null, message]);
    }
  });

  it('challenges a DPoP-bound token for a step-up with the DPoP scheme', async () => {
    const key = await createDpopKey();
    const token = await idp.signToken({ sub: 'u', aud: IDENTIFIER, cnf: { jkt: key.jkt } });
    const dpop = await key.proof({ method: 'POST', url: IDENTIFIER, token });
    const res = await mcp(tool('stepped'), { authorization: `DPoP ${token}`, dpop });
    expect(res.status).toBe(401);
    const { scheme, params } = parseChallenge(res.challenge);
    expect([scheme, params.error, params.acr_values]).toEqual(['DPoP', 'insufficient_user_authentication', 'urn:mfa']);
  });

  it('answers the RFC 9728 document itself, and leaves it to the app with resource.serve_metadata: false', async () => {
    const adapters = await fetch(`${served.get(adapter)!.url}${DOCUMENT}`);
    expect(((await adapters.json()) as { resource: string }).resource).toBe(IDENTIFIER);
    // The routes of this app answer `{ auth }`: the app's own handler, not the adapter, answered.
    const own = await fetch(`${appServed.get(adapter)!.url}${DOCUMENT}`);
    expect([own.status, await own.json()]).toEqual([200, { auth: null }]);
  });
});
