import { afterEach, describe, expect, it } from '@jest/globals';
import Fastify from 'fastify';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { writes } from '../src/app-logger.js';

// The warnings the contract makes loud (the no-auth fallback of a missing mode package, a JWT
// without issuer/audience, report_only) reach stderr when the app's Fastify logger is off
// (`Fastify()`'s default) and go through `app.log` when it is on. Each app is a real process
// (fixtures/warning-app.mjs); a missing package is hidden from Node's resolver by the Express
// adapter's fixture (its fallback tests use it), as on a machine where it is not installed.

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const hidePackages = fileURLToPath(new URL('../../express/test/fixtures/hide-packages.mjs', import.meta.url));
const KEY = 'k3y-for-the-warning-tests';
const JWT_MODE = { auth: { mode: 'jwt', jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } } };
const REPORT_ONLY = { auth: { mode: 'api_key' }, access: { report_only: true, 'GET /reports': 'deny' } };

/** What a stream said so far, and a wait for a line that matches (an event, never a timer). */
function collect(stream: Readable) {
  const seen = { text: '' };
  stream.setEncoding('utf8').on('data', (chunk: string) => (seen.text += chunk));
  const lines = () => seen.text.split('\n').filter((line) => line.length > 0);
  const line = async (match: (line: string) => boolean): Promise<string> => {
    for (;;) {
      const found = lines().find(match);
      if (found !== undefined) return found;
      await once(stream, 'data');
    }
  };
  return { lines, line };
}

const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    child.kill('SIGTERM');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
});

/**
 * The app in a process of its own, listening; `stop()` ends it and gives all it wrote on stdout
 * and stderr (read to the end: a line that is missing is missing, no wait for it).
 */
async function start(config: object, logger: 'on' | 'off', hide = '') {
  const child = spawn(process.execPath, ['--import', hidePackages, fixture('warning-app.mjs')], {
    env: {
      ...process.env,
      AUTHLAYER_HIDE_PACKAGES: hide,
      AUTHLAYER_TEST_CONFIG: JSON.stringify(config),
      AUTHLAYER_TEST_LOGGER: logger,
      SERVICE_API_KEY: KEY,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const stdout = collect(child.stdout!);
  const stderr = collect(child.stderr!);
  const listening = await Promise.race([
    stdout.line((line) => line.startsWith('{"listening":')),
    once(child, 'exit').then(() => Promise.reject(new Error(`the app exited: ${stderr.lines().join('\n')}`))),
  ]);
  const { listening: port } = JSON.parse(listening) as { listening: number };
  const stop = async () => {
    const closed = once(child, 'close');
    child.kill('SIGTERM');
    await closed;
    return { stdout: stdout.lines(), stderr: stderr.lines() };
  };
  return { port, stop };
}

const authlayerLines = (lines: string[]) => lines.filter((line) => line.includes('[authlayer]'));
/** The messages pino wrote at `warn` (level 40). */
const pinoWarnings = (lines: string[]) =>
  lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg?: string })
    .filter((line) => line.level === 40)
    .map((line) => line.msg);

const FALLBACK =
  'auth.mode is "jwt" but the package @authlayer/jwt is not installed: falling back to the no-auth handler, ' +
  'requests are NOT authenticated. Install @authlayer/jwt to authenticate requests.';
const OPEN_CLAIMS =
  'auth.jwt has no issuer and no audience: tokens from any issuer and for any API signed by its key are accepted; set issuer and audience';
const REPORTED = 'access report_only: would_refuse GET /reports (route_denied)';

describe('loud warnings on a Fastify app', () => {
  it('logger off: the no-auth fallback of a missing mode package is on stderr', async () => {
    const { stderr } = await (await start(JWT_MODE, 'off', '@authlayer/jwt')).stop();
    expect(authlayerLines(stderr)).toEqual([`[authlayer] WARNING: ${FALLBACK}`]);
  });

  it('logger on: the same warning goes through app.log, not stderr', async () => {
    const { stdout, stderr } = await (await start(JWT_MODE, 'on', '@authlayer/jwt')).stop();
    expect(pinoWarnings(stdout)).toEqual([FALLBACK]);
    expect(authlayerLines(stderr)).toEqual([]);
  });

  it('logger off: a JWT without issuer and audience is on stderr', async () => {
    const { stderr } = await (await start(JWT_MODE, 'off')).stop();
    expect(authlayerLines(stderr)).toEqual([`[authlayer] WARNING: ${OPEN_CLAIMS}`]);
  });

  it('logger on: the same warning goes through app.log', async () => {
    const { stdout, stderr } = await (await start(JWT_MODE, 'on')).stop();
    expect(pinoWarnings(stdout)).toEqual([OPEN_CLAIMS]);
    expect(authlayerLines(stderr)).toEqual([]);
  });

  it('logger off: a report_only refusal is one warning line on stderr', async () => {
    const app = await start(REPORT_ONLY, 'off');
    const answer = await fetch(`http://127.0.0.1:${app.port}/reports`, { headers: { 'x-api-key': KEY } });
    expect(answer.status).toBe(200);
    const { stderr } = await app.stop();
    expect(authlayerLines(stderr)).toEqual([`[authlayer] WARNING: ${REPORTED}`]);
  });

  it('logger on: a report_only refusal is one warning line through app.log', async () => {
    const app = await start(REPORT_ONLY, 'on');
    const answer = await fetch(`http://127.0.0.1:${app.port}/reports`, { headers: { 'x-api-key': KEY } });
    expect(answer.status).toBe(200);
    const { stdout, stderr } = await app.stop();
    expect(pinoWarnings(stdout)).toEqual([REPORTED]);
    expect(authlayerLines(stderr)).toEqual([]);
  });
});

describe('which Fastify logger writes a warning', () => {
  it.each([
    ['Fastify() (no logger)', {}, false],
    ['logger: true', { logger: true }, true],
    ['level error', { logger: { level: 'error' } }, false],
    ['level silent', { logger: { level: 'silent' } }, false],
  ])('%s', async (_name, options, expected) => {
    const app = Fastify(options);
    expect(writes(app.log, 'warn')).toBe(expected);
    await app.close();
  });

  it('a loggerInstance of its own is taken to write', async () => {
    const noop = () => {};
    const own = {
      info: noop,
      warn: () => {},
      error: () => {},
      debug: noop,
      fatal: noop,
      trace: noop,
      child: () => own,
    };
    const app = Fastify({ loggerInstance: own as never });
    expect(writes(app.log, 'warn')).toBe(true);
    await app.close();
  });
});
