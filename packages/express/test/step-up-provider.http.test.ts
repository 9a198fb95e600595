import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createCaptureLogger, OIDC_RESOURCE, startOidcProvider, type OidcProvider } from '@authlayer/testkit';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { createAuthMiddleware, type AuthDecision } from '../src/index.js';

// Step-up (RFC 9470) and claim rules with RFC 9068 access tokens of a real OpenID provider
// (oidc-provider over HTTP, its own signing key and JWKS): tokens that carry `acr` and
// `auth_time`, one recent and one too old, and one without them. The middleware's clock is pinned
// once the tokens are issued.

const STEP_UP =
  'Bearer realm="authlayer", error="insufficient_user_authentication", ' +
  'error_description="a stronger or more recent authentication is required", acr_values="urn:mfa", max_age=600';

let provider: OidcProvider;
let app: express.Express;
const decisions: AuthDecision[] = [];
const tokens: Record<'recent' | 'old' | 'none', string> = { recent: '', old: '', none: '' };
const echo: RequestHandler = (req, res) => res.json({ userId: req.auth?.userId ?? null });

beforeAll(async () => {
  const at = Math.floor(Date.now() / 1000);
  // oidc-provider warns that its in-memory adapter is for development only: true, and fine here.
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  provider = await startOidcProvider(
    'ES256',
    'step-up-key',
    { id: 'mfa-job', scope: 'invoke', claims: { acr: 'urn:mfa', auth_time: at - 60 } },
    { id: 'stale-job', scope: 'invoke', claims: { acr: 'urn:mfa', auth_time: at - 3600 } },
  );
  warn.mockRestore();
  tokens.recent = await provider.obtainToken('mfa-job');
  tokens.old = await provider.obtainToken('stale-job');
  tokens.none = await provider.obtainToken(); // the default client: no acr, no auth_time
  const now = Date.now();
  const auth = await createAuthMiddleware(
    {
      auth: {
        mode: 'jwt',
        jwt: { jwks_url: provider.jwksUri, issuer: provider.issuer, audience: OIDC_RESOURCE, algorithms: ['ES256'] },
      },
      access: {
        'POST /payments': { scopes: ['invoke'], acr: ['urn:mfa'], max_age: 600 },
        'GET /reports': { claims: { 'realm_access.roles': ['reporter'] } },
      },
    },
    { logger: createCaptureLogger(), now: () => now, onDecision: (decision) => decisions.push(decision) },
  );
  app = express();
  app.use(auth.access);
  app.post('/payments', echo);
  app.get('/reports', echo);
});
afterAll(async () => provider.close());

const bearer = (name: keyof typeof tokens) => ({ Authorization: `Bearer ${tokens[name]}` });

describe("step-up and claims with a real provider's tokens", () => {
  it('the provider issued acr and auth_time as claims of its JWT access tokens', () => {
    const payload = JSON.parse(Buffer.from(tokens.recent.split('.')[1] as string, 'base64url').toString());
    expect(payload).toMatchObject({ acr: 'urn:mfa', client_id: 'mfa-job', aud: OIDC_RESOURCE });
    expect(typeof payload.auth_time).toBe('number');
  });

  it('lets a recent authentication of the accepted acr through', async () => {
    expect((await request(app).post('/payments').set(bearer('recent')).expect(200)).body).toEqual({
      userId: 'mfa-job',
    });
  });

  it('asks a token whose auth_time is too old, or that has no acr, to step up', async () => {
    decisions.length = 0;
    for (const name of ['old', 'none'] as const) {
      const res = await request(app).post('/payments').set(bearer(name)).expect(401);
      expect(res.headers['www-authenticate']).toBe(STEP_UP);
      expect(res.body).toEqual({
        error: 'unauthorized',
        message: 'a stronger or more recent authentication is required',
      });
    }
    expect(decisions.map(({ outcome, reason, userId }) => ({ outcome, reason, userId }))).toEqual([
      { outcome: 'refused', reason: 'step_up_required', userId: 'stale-job' },
      { outcome: 'refused', reason: 'step_up_required', userId: 'reporting-job' },
    ]);
  });

  it('claims: a nested list claim of the token contains the value, or 403 claim_mismatch', async () => {
    await request(app).get('/reports').set(bearer('none')).expect(200); // realm_access.roles: [reporter]
    const res = await request(app).get('/reports').set(bearer('recent')).expect(403);
    expect(res.body).toEqual({
      error: 'forbidden',
      message: 'the claim realm_access.roles does not have an accepted value',
    });
  });
});
