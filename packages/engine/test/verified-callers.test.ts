import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createPolicyEvaluator } from '../src/policy/policy-evaluator.js';
import { CallerError, type VerifiedCaller } from '../src/policy/verified-callers.js';

// The callers of a policy test, made by each mode's own mapping, through the evaluator as the CLI
// runs it: the single API key and its prefix, several JWT issuers picked by `iss`, OAuth 2 claims,
// and each caller the config cannot make (the test file's fault, never a wrong verdict).

const now = () => 1_200_000;
const ROLES = [{ name: 'writer', permissions: ['reports:write'] }];
const TABLE = { 'GET /me': 'authenticated', 'POST /reports': { permissions: ['reports:write'] } };

async function evaluatorOf(auth: Record<string, unknown>, access: Record<string, unknown> = TABLE) {
  return createPolicyEvaluator(parseAuthConfig({ auth, roles: ROLES, access }), { now });
}

describe('API key callers', () => {
  it('the single key is named by its variable, and carried in the configured header', async () => {
    const evaluator = await evaluatorOf({
      mode: 'api_key',
      api_keys: { env_var: 'SERVICE_KEY', header: 'X-Service-Key' },
    });
    const verdict = await evaluator.evaluate({ api_key: 'SERVICE_KEY' }, { request: 'GET /me' });
    expect(verdict).toMatchObject({ status: 200, reason: null });
    await expect(evaluator.evaluate({ api_key: 'reader' }, { request: 'GET /me' })).rejects.toThrow(
      new CallerError('api_key names no key of auth.api_keys.keys (or its env_var, for the single key)'),
    );
  });

  it('with a prefix, the single key is <PREFIX>_API_KEY', async () => {
    const evaluator = await evaluatorOf({ mode: 'api_key', api_keys: { prefix: 'billing' } });
    expect(await evaluator.evaluate({ api_key: 'BILLING_API_KEY' }, { request: 'GET /me' })).toMatchObject({
      status: 200,
    });
  });

  it("a key's roles give their permissions", async () => {
    const evaluator = await evaluatorOf({
      mode: 'api_key',
      api_keys: { keys: [{ name: 'bot', env_var: 'BOT_KEY', roles: ['writer'], tenant_id: 'acme' }] },
    });
    expect(await evaluator.evaluate({ api_key: 'bot' }, { request: 'POST /reports' })).toMatchObject({ status: 200 });
    await expect(
      evaluator.evaluate({ api_key: 7 } as unknown as VerifiedCaller, { request: 'GET /me' }),
    ).rejects.toThrow(CallerError);
  });

  it("a request carrying a credential that is not a caller's: refused as invalid, not let through", async () => {
    const evaluator = await evaluatorOf({ mode: 'api_key', api_keys: { keys: [{ name: 'bot', env_var: 'BOT_KEY' }] } });
    const verdict = await evaluator.evaluate('anonymous', { request: 'GET /me', headers: { 'x-api-key': 'guessed' } });
    expect(verdict).toMatchObject({ status: 401, reason: 'credentials_invalid' });
  });
});

describe('token callers', () => {
  const providers = [
    { issuer: 'https://a.example/', jwks_url: 'https://a.example/jwks', audience: 'api' },
    { issuer: 'https://b.example/', jwks_url: 'https://b.example/jwks', audience: 'api', trust_roles: false },
  ];

  it('several JWT issuers: the caller is made by the provider its iss names', async () => {
    const evaluator = await evaluatorOf({ mode: 'jwt', jwt: { providers } });
    const trusted = { jwt: { iss: 'https://a.example/', sub: 'u-1', roles: ['writer'] } };
    const partner = { jwt: { iss: 'https://b.example/', sub: 'u-1', roles: ['writer'] } };
    expect(await evaluator.evaluate(trusted, { request: 'POST /reports' })).toMatchObject({ status: 200 });
    // The partner's role names are not given the roles section's permissions.
    expect(await evaluator.evaluate(partner, { request: 'POST /reports' })).toMatchObject({
      status: 403,
      reason: 'permission_missing',
    });
    await expect(
      evaluator.evaluate({ jwt: { iss: 'https://c.example/', sub: 'u-1' } }, { request: 'GET /me' }),
    ).rejects.toThrow(new CallerError('jwt: its iss names none of auth.jwt.providers'));
  });

  it('an OAuth 2 caller is made by its claims mapping, carried as a bearer token', async () => {
    const evaluator = await evaluatorOf(
      { mode: 'oauth2', oauth2: { introspection_url: 'https://idp.example/introspect', client_id: 'api' } },
      { 'GET /search': { scopes: ['search:read'] } },
    );
    const reader = { oauth2: { sub: 'u-9', scope: 'search:read' } };
    expect(await evaluator.evaluate(reader, { request: 'GET /search' })).toMatchObject({ status: 200 });
    expect(await evaluator.evaluate({ oauth2: { sub: 'u-9' } }, { request: 'GET /search' })).toMatchObject({
      status: 403,
      reason: 'scope_missing',
    });
    expect(await evaluator.evaluate('anonymous', { request: 'GET /search' })).toMatchObject({
      status: 401,
      reason: 'credentials_missing',
    });
  });
});

describe('callers the config cannot make', () => {
  it.each([
    ['two modes in one caller', { api_key: 'bot', jwt: {} }, 'a caller is { api_key: <name> }'],
    ['a caller that is a word', 'admin', 'a caller is { api_key: <name> }'],
    ['a mode auth.mode does not list', { oauth2: { sub: 'u-1' } }, 'oauth2 is not a mode auth.mode lists'],
    ['claims that are a list', { jwt: ['sub'] }, 'jwt must map claim names to values'],
  ])('%s: a CallerError naming what is wrong', async (_what, caller, message) => {
    const evaluator = await evaluatorOf({
      mode: ['api_key', 'jwt'],
      api_keys: { keys: [{ name: 'bot', env_var: 'BOT_KEY' }] },
      jwt: { issuer: 'https://a.example/', jwks_url: 'https://a.example/jwks', audience: 'api' },
    });
    const evaluating = evaluator.evaluate(caller as unknown as VerifiedCaller, { request: 'GET /me' });
    await expect(evaluating).rejects.toThrow(CallerError);
    await expect(evaluating).rejects.toThrow(message);
  });
});
