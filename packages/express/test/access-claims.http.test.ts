import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { createAuthMiddleware, requireAccess, type AuthDecision } from '../src/index.js';

// Rules that say more (`claims`: 403 claim_mismatch) and tell the client how to get in (RFC 9470
// step-up, `acr` and `max_age`: 401 step_up_required with the challenge): in the table, inside
// `any`, in requireAccess, with report_only, and as decisions. The clock is pinned through `now`;
// tokens come from testkit's loopback identity provider (a real JWKS server).

const KEY = 'claims-key-0123456789abcdef';
const STEP_UP =
  'Bearer realm="authlayer", error="insufficient_user_authentication", ' +
  'error_description="a stronger or more recent authentication is required"';
const STEP_UP_BODY = { error: 'unauthorized', message: 'a stronger or more recent authentication is required' };

let idp: TestIdentityProvider;
let NOW: number;
let SECONDS: number;
const tokens: Record<string, string> = {};
const echo: RequestHandler = (req, res) => res.json({ userId: req.auth?.userId ?? null });

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  // Every token is signed before the clock is pinned, so none is issued after "now".
  const at = Math.floor(Date.now() / 1000);
  const sign = async (name: string, claims: object) => (tokens[name] = await idp.signToken({ sub: name, ...claims }));
  await sign('gold', { org: { tier: 'gold' }, groups: ['ops', 'eng'], level: 3, email_verified: true });
  await sign('bronze', { org: { tier: 'bronze-sensitive-value' }, groups: ['sales'], level: '3' });
  await sign('nested', { groups: [['eng']], org: 'gold' });
  await sign('mfa', { acr: 'urn:mfa', auth_time: at - 300, roles: ['admin'] });
  await sign('mfaOld', { acr: 'urn:mfa', auth_time: at - 301, roles: ['admin'] });
  await sign('pwd', { acr: 'urn:pwd', auth_time: at, roles: ['admin'] });
  await sign('plain', { roles: ['admin'] });
  await sign('stringTime', { acr: 'urn:mfa', auth_time: String(at) });
  await sign('mfaUser', { acr: 'urn:mfa', auth_time: at });
  // auth_time ahead of the clock: within auth.jwt.leeway_seconds (20, not the default 30), one second past, far past.
  await sign('ahead', { auth_time: at + 20 });
  await sign('aheadPast', { auth_time: at + 21 });
  await sign('aheadYear', { auth_time: at + 365 * 86_400 });
  await sign('aheadHuge', { auth_time: 1e308 });
  NOW = at * 1000 + 999;
  SECONDS = at;
});
afterAll(async () => idp.close());

async function appWith(access: object, extra: object = {}) {
  const decisions: AuthDecision[] = [];
  const logger = createCaptureLogger();
  const config = idp.config('jwt', { access, ...extra });
  const auth = await createAuthMiddleware(
    { ...config, auth: { ...(config.auth as object), mode: ['api_key', 'jwt'] } },
    { env: { ...idp.env, SERVICE_API_KEY: KEY }, logger, now: () => NOW, onDecision: (d) => decisions.push(d) },
  );
  const app = express();
  app.use(auth.access);
  for (const path of ['/gold', '/groups', '/flag', '/level', '/mfa', '/recent', '/both', '/any', '/first', '/admin']) {
    app.get(path, echo);
  }
  app.get('/t/:tenant/x', echo);
  return { app, decisions, logger, auth };
}

const bearer = (name: string) => ({ Authorization: `Bearer ${tokens[name]}` });
const brief = (decisions: AuthDecision[]) =>
  decisions.map(({ outcome, reason, userId }) => ({ outcome, reason, userId }));

const TABLE = {
  'GET /gold': { claims: { 'org.tier': ['gold', 'platinum'] } },
  'GET /groups': { claims: { groups: ['eng'] } },
  'GET /flag': { claims: { email_verified: [true] } },
  'GET /level': { claims: { level: [3] } },
  'GET /mfa': { acr: ['urn:mfa', 'urn:hwk'] },
  'GET /recent': { max_age: 300 },
  'GET /both': { roles: ['admin'], acr: ['urn:mfa'], max_age: 300 },
  'GET /any': { any: [{ roles: ['auditor'] }, { acr: ['urn:mfa'] }] },
  'GET /first': { any: [{ acr: ['urn:mfa'] }, { roles: ['auditor'] }] },
  'GET /t/:tenant/x': { tenant_param: 'tenant', max_age: 60 },
};

describe('claims: the verified claim must hold an accepted value', () => {
  it('equal to one value, by dot path; a list containing one; a boolean; a number, type included', async () => {
    const { app } = await appWith(TABLE);
    await request(app).get('/gold').set(bearer('gold')).expect(200);
    await request(app).get('/groups').set(bearer('gold')).expect(200);
    await request(app).get('/flag').set(bearer('gold')).expect(200);
    await request(app).get('/level').set(bearer('gold')).expect(200);
    await request(app).get('/groups').set(bearer('bronze')).expect(403);
    await request(app).get('/level').set(bearer('bronze')).expect(403); // "3" is not 3
    await request(app).get('/flag').set(bearer('bronze')).expect(403); // absent
    // A list inside a list is not a value; an object where the path goes deeper holds nothing.
    await request(app).get('/groups').set(bearer('nested')).expect(403);
    await request(app).get('/gold').set(bearer('nested')).expect(403);
  });

  it('refuses 403 claim_mismatch naming the path, never a value, without a challenge', async () => {
    const { app, decisions, logger } = await appWith(TABLE);
    const res = await request(app).get('/gold').set(bearer('bronze')).expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'the claim org.tier does not have an accepted value' });
    expect(res.headers['www-authenticate']).toBeUndefined();
    const seen = JSON.stringify([res.headers, res.text, logger.lines, decisions]);
    // The caller's value, the accepted ones, the token.
    for (const value of ['sensitive', '"gold', 'platinum', tokens.bronze as string]) {
      expect(seen).not.toContain(value);
    }
    expect(brief(decisions)).toEqual([{ outcome: 'forbidden', reason: 'claim_mismatch', userId: 'bronze' }]);
  });

  it('is never satisfied by an API key, which has no claims', async () => {
    const { app, decisions } = await appWith(TABLE);
    const res = await request(app).get('/gold').set('X-API-Key', KEY).expect(403);
    expect(res.body.message).toBe('the claim org.tier does not have an accepted value');
    expect(brief(decisions)).toEqual([{ outcome: 'forbidden', reason: 'claim_mismatch', userId: 'SERVICE_API_KEY' }]);
  });
});

describe('step-up (RFC 9470): acr and max_age', () => {
  it('lets an accepted acr and a recent enough auth_time through', async () => {
    const { app } = await appWith(TABLE);
    await request(app).get('/mfa').set(bearer('mfa')).expect(200);
    await request(app).get('/recent').set(bearer('pwd')).expect(200);
    await request(app).get('/both').set(bearer('mfa')).expect(200);
  });

  it('refuses another acr, or none, with 401 and the exact challenge naming acr_values', async () => {
    const { app, decisions } = await appWith(TABLE);
    for (const name of ['pwd', 'plain']) {
      const res = await request(app).get('/mfa').set(bearer(name)).expect(401);
      expect(res.body).toEqual(STEP_UP_BODY);
      expect(res.headers['www-authenticate']).toBe(`${STEP_UP}, acr_values="urn:mfa urn:hwk"`);
    }
    expect(brief(decisions)).toEqual([
      { outcome: 'refused', reason: 'step_up_required', userId: 'pwd' },
      { outcome: 'refused', reason: 'step_up_required', userId: 'plain' },
    ]);
  });

  it('max_age: auth_time exactly max_age seconds old passes, one second older is refused', async () => {
    const { app } = await appWith(TABLE);
    expect(Math.floor(NOW / 1000) - SECONDS).toBe(0);
    await request(app).get('/both').set(bearer('mfa')).expect(200);
    const res = await request(app).get('/both').set(bearer('mfaOld')).expect(401);
    expect(res.headers['www-authenticate']).toBe(`${STEP_UP}, acr_values="urn:mfa", max_age=300`);
    expect((await request(app).get('/recent').set(bearer('mfaOld')).expect(401)).headers['www-authenticate']).toBe(
      `${STEP_UP}, max_age=300`,
    );
  });

  it("max_age: an auth_time later than now plus the issuer's leeway_seconds fails it, as none does", async () => {
    const { app, decisions } = await appWith(TABLE, { auth: { jwt: { leeway_seconds: 20 } } });
    await request(app).get('/recent').set(bearer('ahead')).expect(200);
    for (const name of ['aheadPast', 'aheadYear', 'aheadHuge']) {
      const res = await request(app).get('/recent').set(bearer(name)).expect(401);
      expect(res.headers['www-authenticate']).toBe(`${STEP_UP}, max_age=300`);
    }
    expect(brief(decisions).map(({ reason }) => reason)).toEqual([null, ...Array(3).fill('step_up_required')]);
  });

  it('a token without auth_time, or with one that is not a number, and any API key fail it', async () => {
    const { app, decisions } = await appWith(TABLE);
    await request(app).get('/recent').set(bearer('plain')).expect(401);
    await request(app).get('/mfa').set(bearer('stringTime')).expect(200);
    await request(app).get('/recent').set(bearer('stringTime')).expect(401);
    const key = await request(app).get('/mfa').set('X-API-Key', KEY).expect(401);
    expect(key.body).toEqual(STEP_UP_BODY);
    expect(key.headers['www-authenticate']).toBe(`${STEP_UP}, acr_values="urn:mfa urn:hwk"`);
    expect(decisions.at(-1)).toMatchObject({ outcome: 'refused', reason: 'step_up_required', method: 'api_key' });
  });

  it('is asked for last: a name or a tenant that is refused answers 403 first', async () => {
    const { app } = await appWith(TABLE);
    const noRole = await request(app).get('/both').set('X-API-Key', KEY).expect(403);
    expect(noRole.body.message).toBe('the role admin is required');
    await request(app).get('/t/acme/x').set(bearer('mfaOld')).expect(403);
  });

  it('names resource_metadata in the challenge when a resource is configured, as every 401 does', async () => {
    const { app } = await appWith(TABLE, { resource: { identifier: 'https://api.example.com' } });
    const res = await request(app).get('/mfa').set(bearer('pwd')).expect(401);
    expect(res.headers['www-authenticate']).toBe(
      `${STEP_UP}, acr_values="urn:mfa urn:hwk", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"`,
    );
  });
});

describe('inside any, and report_only', () => {
  it('an entry with acr is one way in; none holding answers the first entry’s refusal', async () => {
    const { app } = await appWith(TABLE);
    await request(app).get('/any').set(bearer('mfa')).expect(200);
    const any = await request(app).get('/any').set(bearer('pwd')).expect(403);
    expect(any.body.message).toBe('the role auditor is required');
    const first = await request(app).get('/first').set(bearer('pwd')).expect(401);
    expect(first.headers['www-authenticate']).toBe(`${STEP_UP}, acr_values="urn:mfa"`);
  });

  it('report_only: both become would_refuse with their reason, logged, and the request goes on', async () => {
    const { app, decisions, logger } = await appWith({ ...TABLE, report_only: true });
    await request(app).get('/gold').set(bearer('bronze')).expect(200);
    await request(app).get('/mfa').set(bearer('pwd')).expect(200);
    expect(brief(decisions)).toEqual([
      { outcome: 'would_refuse', reason: 'claim_mismatch', userId: 'bronze' },
      { outcome: 'would_refuse', reason: 'step_up_required', userId: 'pwd' },
    ]);
    expect(logger.lines.map((line) => line.message)).toEqual(
      expect.arrayContaining([
        'access report_only: would_refuse GET /gold (claim_mismatch)',
        'access report_only: would_refuse GET /mfa (step_up_required)',
      ]),
    );
  });
});

describe('requireAccess with claims, acr and maxAge', () => {
  /** Routes wired by hand: `auth`, then the guard (the table has no entry for them). */
  async function guarded(extra: object = {}) {
    const { decisions, auth } = await appWith({}, extra);
    const app = express();
    app.get('/guarded', auth, requireAccess({ claims: { 'org.tier': ['gold'] } }), echo);
    app.get('/stepped', auth, requireAccess({ acr: ['urn:mfa'], maxAge: 300 }), echo);
    const rule = auth.config.access['POST /config'];
    if (rule !== undefined) app.get('/config', auth, requireAccess(rule), echo);
    return { app, decisions };
  }

  it('answers as the table: 403 claim_mismatch, 401 step_up_required, and each is the one decision', async () => {
    const { app, decisions } = await guarded();
    await request(app).get('/guarded').set(bearer('gold')).expect(200);
    expect((await request(app).get('/guarded').set(bearer('bronze')).expect(403)).body.message).toBe(
      'the claim org.tier does not have an accepted value',
    );
    await request(app).get('/stepped').set(bearer('mfaUser')).expect(200);
    const res = await request(app).get('/stepped').set(bearer('mfaOld')).expect(401);
    expect(res.body).toEqual(STEP_UP_BODY);
    expect(res.headers['www-authenticate']).toBe(`${STEP_UP}, acr_values="urn:mfa", max_age=300`);
    expect(brief(decisions)).toEqual([
      { outcome: 'allowed', reason: null, userId: 'gold' },
      { outcome: 'forbidden', reason: 'claim_mismatch', userId: 'bronze' },
      { outcome: 'allowed', reason: null, userId: 'mfaUser' },
      { outcome: 'refused', reason: 'step_up_required', userId: 'mfaOld' },
    ]);
  });

  it("takes the config's own rule, and names resource_metadata as the table does", async () => {
    const { app } = await guarded({
      // A key of its own (POST): the table leaves GET /config to requireAccess.
      access: { 'POST /config': { acr: ['urn:mfa'] } },
      resource: { identifier: 'https://api.example.com' },
    });
    const res = await request(app).get('/config').set('X-API-Key', KEY).expect(401);
    expect(res.headers['www-authenticate']).toBe(
      `${STEP_UP}, acr_values="urn:mfa", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"`,
    );
  });

  it.each([
    ['claims as a list', { claims: ['org'] }, /claims must map claim names/],
    ['claims naming none', { claims: {} }, /claims must name at least one claim/],
    ['a claim without values', { claims: { a: [] } }, /claims must map/],
    ['a claim value that is an object', { claims: { a: [{}] } }, /claims must map/],
    ['a claim path with a space', { claims: { 'a b': ['x'] } }, /a claim path must be printable ASCII/],
    ['an empty acr', { acr: [] }, /acr must be a non-empty list/],
    ['a negative maxAge', { maxAge: -1 }, /maxAge must be a whole number of seconds, 0 or more/],
    ['max_age as the YAML spells it', { max_age: 300 }, /unknown field max_age \(a parsed rule spells it maxAge\)/],
    ['an unknown field inside any', { any: [{ acr: ['x'], max_age: 1 }] }, /an entry of any lists only .*not max_age/],
  ])('throws a TypeError at once for %s', (_name, rule, message) => {
    expect(() => requireAccess(rule as never)).toThrow(TypeError);
    expect(() => requireAccess(rule as never)).toThrow(message);
  });
});
