import { afterEach, describe, expect, it } from '@jest/globals';
import { createAuthContext, parseAuthConfig } from '@authlayer/core';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../src/engine.js';
import { createPolicyEvaluator, type PolicyEvaluator } from '../src/policy/policy-evaluator.js';
import { RequestError, type PolicyRequest } from '../src/policy/policy-request.js';
import { traceDefault, traceKey } from '../src/policy/policy-trace.js';
import { runPolicyTests } from '../src/policy/run-policy-tests.js';
import { CallerError, VerifiedCallers } from '../src/policy/verified-callers.js';
import { engineAt } from './support/engine-at.js';

// The policy runner's edges: requests a case cannot send, report_only on an MCP message, a run
// without options, `access.tests` that cannot pass, and a mode whose package is not installed.

const now = () => 1_200_000;
const AUTH = { mode: 'api_key', api_keys: { keys: [{ name: 'reader', env_var: 'R_API_KEY', roles: ['reader'] }] } };
const reader = { api_key: 'reader' } as const;

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'policy-edges-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('a request a case cannot send', () => {
  it.each([
    [{ request: 'GET /me', headers: { 'x-trace': 7 } }, 'headers.x-trace must be a string'],
    [{ request: 42 }, 'request must be "METHOD /path", for example "GET /reports/7"'],
    [{ mcp: { method: 'tools/list' } }, 'an mcp case needs the config to have an mcp section'],
  ])('is refused with a RequestError (%#)', async (input, message) => {
    const evaluator = await createPolicyEvaluator(parseAuthConfig({ auth: AUTH, access: {} }), { now });
    await expect(evaluator.evaluate(reader, input as unknown as PolicyRequest)).rejects.toThrow(
      new RequestError(message),
    );
  });

  it('an mcp case that is no message', async () => {
    const config = parseAuthConfig({ auth: AUTH, mcp: { endpoint: '/mcp' }, access: { 'POST /mcp': 'public' } });
    const evaluator = await createPolicyEvaluator(config, { now });
    for (const mcp of [null, { name: 'x' }, { method: 7 }]) {
      await expect(evaluator.evaluate(reader, { mcp } as unknown as PolicyRequest)).rejects.toThrow(
        'mcp must be { method, name, arguments } (or uri for resources)',
      );
    }
  });
});

describe('report_only and an MCP message', () => {
  it.each(['optional', 'authenticated'])(
    'a message its key refuses goes on, the refusal kept as wouldRefuse (POST /mcp: %s)',
    async (route) => {
      const config = parseAuthConfig({
        auth: AUTH,
        mcp: { endpoint: '/mcp' },
        access: { report_only: true, 'POST /mcp': route, 'MCP tools/call wipe': { roles: ['admin'] } },
      });
      const evaluator = await createPolicyEvaluator(config, { now });
      const verdict = await evaluator.evaluate(reader, { mcp: { method: 'tools/call', name: 'wipe' } });
      expect(verdict).toMatchObject({
        status: 200,
        reason: null,
        wouldRefuse: { reason: 'role_missing', key: 'MCP tools/call wipe' },
      });
    },
  );
});

describe('runPolicyTests', () => {
  const config = parseAuthConfig({ auth: AUTH, access: { 'GET /me': 'authenticated' } });

  it('runs with the real clock when given no options', async () => {
    const dir = await folder({
      'me.yaml': 'callers: { r: { api_key: reader } }\ncases: [{ as: r, request: "GET /me", expect: 200 }]\n',
    });
    const report = await runPolicyTests(config, [join(dir, 'me.yaml')]);
    expect(report).toMatchObject({ files: 1, cases: 1, failures: [], unreached: [] });
  });

  it("an evaluator's own failure is not blamed on the file: it is thrown as it is", async () => {
    const dir = await folder({
      'me.yaml': 'callers: { r: anonymous }\ncases: [{ as: r, request: "GET /me", expect: 401 }]\n',
    });
    const broken: PolicyEvaluator = {
      config,
      evaluate: () => Promise.reject(new TypeError('evaluator broke')),
    };
    await expect(runPolicyTests(config, [join(dir, 'me.yaml')], { evaluator: broken })).rejects.toThrow(
      new TypeError('evaluator broke'),
    );
  });
});

describe('access.tests on an engine', () => {
  const opened: Engine[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((engine) => engine.close()));
  });

  it('a test file that is not there: start-up refused at access.tests', async () => {
    const dir = await folder({});
    const missing = join(dir, 'nowhere.yaml');
    const started = engineAt({ access: { tests: [missing], 'GET /me': 'authenticated' } });
    await expect(started).rejects.toThrow(`access.tests: ${missing}: cannot read it (ENOENT)`);
    await expect(started).rejects.toMatchObject({ name: 'ConfigError' });
  });

  it('several failed cases: the first named, and how many more', async () => {
    const cases =
      'callers: { r: anonymous }\ncases:\n' +
      '  - { name: one, as: r, request: "GET /me", expect: 200 }\n' +
      '  - { name: two, as: r, request: "GET /me", expect: 204 }\n' +
      '  - { name: three, as: r, request: "GET /me", expect: 401 }\n';
    const dir = await folder({ 'cases.yaml': cases });
    await expect(
      engineAt({ access: { tests: [join(dir, 'cases.yaml')], 'GET /me': 'authenticated' } }),
    ).rejects.toThrow(
      /access\.tests: a case failed: .*cases\.yaml: one: expected 200, got 401 credentials_missing.* \(and 1 more\)$/,
    );
  });
});

describe('the trace of a key', () => {
  const context = createAuthContext({ method: 'jwt', userId: 'u' });

  it('a rule of modes alone allows a caller of its mode, by its modes', () => {
    const rule = parseAuthConfig({
      auth: { mode: ['jwt', 'api_key'], jwt: { secret_env: 'S' } },
      access: { 'GET /x': { modes: ['jwt'] } },
    }).access['GET /x']!;
    expect(traceKey('GET /x', rule, context, { headers: {} }, null, now)).toEqual({
      key: 'GET /x',
      verdict: 'allow',
      field: 'modes',
      reason: null,
    });
  });

  it('the default asks an anonymous caller for credentials', () => {
    expect(traceDefault('authenticated', null)).toEqual({
      key: 'default',
      verdict: 'refuse',
      field: 'default',
      reason: 'credentials_missing',
    });
    expect(traceDefault('authenticated', context)).toMatchObject({ verdict: 'allow' });
  });
});

describe('a caller of a mode whose package is not installed', () => {
  it("is the test file's fault (CallerError); other modules load as they are", async () => {
    const config = parseAuthConfig({ auth: { mode: 'jwt', jwt: { secret_env: 'S' } }, access: {} });
    const asked: string[] = [];
    const callers = new VerifiedCallers(config, (specifier) => {
      asked.push(specifier);
      return specifier === '@authlayer/jwt' ? Promise.reject(new Error('not installed')) : Promise.resolve({ own: 1 });
    });
    const load = callers.importModule();
    expect(await load('ioredis')).toEqual({ own: 1 });
    const jwt = (await load('@authlayer/jwt')) as { createHandler: (c: unknown, d: object) => Promise<unknown> };
    await jwt.createHandler(config, { env: {}, logger: console });
    expect(asked).toEqual(['ioredis', '@authlayer/jwt']);
    expect(() => callers.present({ jwt: { sub: 'u' } })).toThrow(
      new CallerError('jwt callers need @authlayer/jwt installed'),
    );
  });
});
