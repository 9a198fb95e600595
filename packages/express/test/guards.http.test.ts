import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { OIDC_RESOURCE, createCaptureLogger, startOidcProvider, type OidcProvider } from '@authlayer/testkit';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { createAuthMiddleware, requireAccess, requirePermissions, requireRoles, requireScopes } from '../src/index.js';

// Tokens from a real OpenID provider (testkit's oidc-provider on loopback), one client per caller.
const CLIENTS = [
  { id: 'invoker', scope: 'invoke', claims: { roles: ['caller'] } },
  { id: 'reader', scope: 'reports:read', claims: { permissions: ['reports:read:own'] } },
  { id: 'stringy', scope: 'read', claims: { permissions: 'admin invoke' } },
  { id: 'objecty', scope: 'read', claims: { permissions: { invoke: true, admin: ['invoke'] } } },
  { id: 'cased', scope: 'Reports:Read', claims: { permissions: ['Invoke'], roles: ['Admin'] } },
  { id: 'admin', scope: 'read', claims: { roles: ['admin'] } },
] as const;
type Caller = (typeof CLIENTS)[number]['id'];

const ok: RequestHandler = (req, res) => res.json(req.auth);
const forbidden = (description: string, scope?: string) =>
  `Bearer realm="authlayer", error="insufficient_scope", error_description="${description}"` +
  (scope === undefined ? '' : `, scope="${scope}"`);

describe('guards with JWTs from a real OpenID provider', () => {
  let provider: OidcProvider;
  let app: express.Express;
  const tokens = {} as Record<Caller, string>;

  beforeAll(async () => {
    // oidc-provider warns that its in-memory adapter is for development only: true, and fine here.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    provider = await startOidcProvider('RS256', 'guard-key', ...CLIENTS);
    warn.mockRestore();
    for (const { id } of CLIENTS) tokens[id] = await provider.obtainToken(id);
    const auth = await createAuthMiddleware(
      {
        auth: { mode: 'jwt', jwt: { jwks_url: provider.jwksUri, issuer: provider.issuer, audience: OIDC_RESOURCE } },
        roles: [
          { name: 'caller', permissions: ['invoke'] },
          { name: 'admin', permissions: ['invoke', 'admin'] },
        ],
      },
      { logger: createCaptureLogger() },
    );
    app = express();
    app.post('/invoke', auth, requirePermissions('invoke'), ok);
    app.get('/reports', auth, requireScopes('reports:read'), ok);
    app.get('/admin', auth, requireRoles('admin'), ok);
    app.get('/both', auth, requirePermissions('invoke', 'admin'), ok);
    app.get('/open', auth, ok);
    app.get('/rule', auth, requireAccess({ permissions: ['invoke'], scopes: ['read'], roles: ['admin'] }), ok);
  });
  afterAll(() => provider.close());

  const call = (method: 'get' | 'post', path: string, caller: Caller) =>
    request(app)[method](path).set('Authorization', `Bearer ${tokens[caller]}`);

  it('lets a caller with every required name through: permissions mapped from top-level roles count', async () => {
    const res = await call('post', '/invoke', 'invoker').expect(200);
    expect(res.body).toMatchObject({ method: 'jwt', userId: 'invoker', roles: ['caller'], permissions: ['invoke'] });
    await call('get', '/reports', 'reader').expect(200);
    await call('get', '/admin', 'admin').expect(200);
    await call('get', '/both', 'admin').expect(200);
  });

  it('answers 403 with the exact insufficient_scope challenge when a permission is missing', async () => {
    const res = await call('post', '/invoke', 'reader').expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'the permission invoke is required' });
    expect(res.headers['www-authenticate']).toBe(forbidden('the permission invoke is required'));
  });

  it('names only the missing required names, never what the caller holds', async () => {
    const res = await call('get', '/both', 'invoker').expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'the permission admin is required' });
    expect(JSON.stringify(res.body) + String(res.headers['www-authenticate'])).not.toMatch(/caller|invoker/);
  });

  it('adds scope="<the required scopes>" for requireScopes (RFC 6750 §3.1)', async () => {
    const res = await call('get', '/reports', 'invoker').expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'the scope reports:read is required' });
    expect(res.headers['www-authenticate']).toBe(forbidden('the scope reports:read is required', 'reports:read'));
  });

  it('answers 403 for a missing role', async () => {
    const res = await call('get', '/admin', 'invoker').expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'the role admin is required' });
  });

  it('never grants by substring of a string permissions claim ("admin invoke")', async () => {
    const res = await call('post', '/invoke', 'stringy').expect(403);
    expect(res.body.message).toBe('the permission invoke is required');
    await call('get', '/both', 'stringy').expect(403, {
      error: 'forbidden',
      message: 'the permissions invoke, admin are required',
    });
  });

  it('never grants by key of an object permissions claim', async () => {
    await call('post', '/invoke', 'objecty').expect(403);
    await call('get', '/both', 'objecty').expect(403);
  });

  it('compares names case-sensitively', async () => {
    await call('post', '/invoke', 'cased').expect(403);
    await call('get', '/admin', 'cased').expect(403);
    await call('get', '/reports', 'cased').expect(403);
  });

  it('leaves unguarded routes to any authenticated caller, and still answers 401 without a token', async () => {
    await call('get', '/open', 'stringy').expect(200);
    const res = await request(app).post('/invoke').expect(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="authlayer"');
  });

  it('requireAccess checks permissions, then roles, then scopes (challenged only when alone missing)', async () => {
    await call('get', '/rule', 'admin').expect(200);
    await call('get', '/rule', 'reader').expect(403, {
      error: 'forbidden',
      message: 'the permission invoke is required',
    });
    const res = await call('get', '/rule', 'invoker').expect(403);
    // No scope would let in a caller that also lacks the role: the role is what it is refused for.
    expect(res.body.message).toBe('the role admin is required');
    expect(res.headers['www-authenticate']).toBe(forbidden('the role admin is required'));
  });
});
