import { describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { connect } from 'node:net';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { openRawConnection } from '@authlayer/testkit';
import { runToExit, startService, writeConfig } from './cli.js';

const KEY = 'operations-test-key-0b7c2e';
const CONFIG = writeConfig('auth:\n  mode: api_key\n');

/** Whether a new TCP connection to the service is accepted. */
async function accepts(url: string): Promise<boolean> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  const accepted = await new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
  });
  socket.destroy();
  return accepted;
}

/**
 * Starts a POST /invoke whose body is not finished: a request in flight until `finish` is called.
 * Resolves once the service has authenticated it: `Expect: 100-continue` gets its 100 only then
 * (the decision itself is reported when the answer starts, so no log line says it earlier).
 */
async function slowInvoke(url: string) {
  const body = '{"query":"slow"}';
  const req: ClientRequest = httpRequest(`${url}/invoke`, {
    method: 'POST',
    headers: {
      'X-API-Key': KEY,
      'Content-Type': 'application/json',
      'Content-Length': String(body.length),
      Expect: '100-continue',
    },
  });
  req.flushHeaders();
  await once(req, 'continue');
  req.write(body.slice(0, 5));
  const answered = once(req, 'response').then(async ([res]) => {
    const response = res as IncomingMessage;
    let text = '';
    response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    await once(response, 'end');
    return { status: response.statusCode, body: text };
  });
  return { finish: () => req.end(body.slice(5)), answered };
}

describe('graceful shutdown', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s: the request in flight completes, new connections are refused, exit 0',
    async (signal) => {
      const service = await startService(['--config', CONFIG], { SERVICE_API_KEY: KEY });
      // The server has the request (its headers passed authentication) before the signal.
      const slow = await slowInvoke(service.url);
      service.child.kill(signal);
      await service.waitForLine(/shutting down; no new connections, 1 request\(s\) in flight/);
      expect(await accepts(service.url)).toBe(false);
      slow.finish();
      expect(await slow.answered).toEqual({ status: 200, body: expect.stringContaining('"query":"slow"') });
      const [code] = await service.exited;
      expect(code).toBe(0);
      expect(service.lines.at(-1)).toContain('"msg":"stopped"');
    },
  );

  it('cuts a request still in flight after 10 s, and exits 0', async () => {
    const service = await startService(['--config', CONFIG], { SERVICE_API_KEY: KEY });
    const stuck = await slowInvoke(service.url);
    const cut = stuck.answered.catch((error: NodeJS.ErrnoException) => error.code);
    const signalled = performance.now();
    service.child.kill('SIGTERM');
    const [code] = await service.exited;
    const seconds = (performance.now() - signalled) / 1000;
    expect(code).toBe(0);
    expect(seconds).toBeGreaterThanOrEqual(9.5);
    // No upper bound of the clock: the request never finishes on its own, so the exit and the
    // reset connection show it was cut (a bound of 13 s could fire on a loaded machine).
    expect(await cut).toBe('ECONNRESET');
  });

  it('SIGTERM with an idle keep-alive connection: a request sent on it afterwards is answered, then closed', async () => {
    // The 2026-11-24 probe: 32 keep-alive clients each lost one request (ECONNRESET), because the
    // idle connections were destroyed while their next request was on the wire.
    const service = await startService(['--config', CONFIG], { SERVICE_API_KEY: KEY });
    const connection = await openRawConnection(service.url);
    const invoke =
      `POST /invoke HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 13\r\n\r\n{"query":"k"}';
    connection.write(invoke);
    expect((await connection.nextResponse()).status).toBe(200);
    service.child.kill('SIGTERM');
    await service.waitForLine(/shutting down; no new connections, 0 request\(s\) in flight/);
    connection.write(invoke);
    const answer = await connection.nextResponse();
    expect({ status: answer.status, connection: answer.headers.connection }).toEqual({
      status: 200,
      connection: 'close',
    });
    await connection.closed;
    const [code] = await service.exited;
    expect(code).toBe(0);
  });

  it('stops at once when nothing is in flight', async () => {
    const service = await startService(['--config', CONFIG], { SERVICE_API_KEY: KEY });
    expect(await service.stop('SIGTERM')).toBe(0);
  });
});

describe('WORKERS', () => {
  it('WORKERS=2: two worker processes answer on one port; SIGTERM stops them all with exit 0', async () => {
    const service = await startService(['--config', CONFIG], { SERVICE_API_KEY: KEY, WORKERS: '2' });
    const pids = new Set<number>();
    for (let i = 0; i < 20 && pids.size < 2; i++) {
      const res = await fetch(`${service.url}/invoke`, {
        method: 'POST',
        headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json', Connection: 'close' },
        body: '{"query":"w"}',
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    for (const line of service.lines) {
      const record = JSON.parse(line) as { msg: string; pid: number };
      if (record.msg === 'auth') pids.add(record.pid);
    }
    expect(pids.size).toBe(2);
    expect(service.lines.filter((line) => line.includes('listening on'))).toHaveLength(1);
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(service.lines.filter((line) => line.includes('"msg":"stopped"'))).toHaveLength(2);
  });

  it.each([['0'], ['two'], ['1.5']])('refuses WORKERS=%s on one line', async (workers) => {
    const result = await runToExit(['--config', CONFIG], { SERVICE_API_KEY: KEY, WORKERS: workers });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('authlayer: WORKERS must be an integer from 1 to 256\n');
  });
});

describe('LOG_FORMAT, METRICS and bad values', () => {
  it('METRICS=1 serves /metrics', async () => {
    const service = await startService(['--config', CONFIG], { SERVICE_API_KEY: KEY, METRICS: '1' });
    const metrics = await fetch(`${service.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('# TYPE authlayer_auth_decisions_total counter');
    expect(await service.stop()).toBe(0);
  });

  it('LOG_FORMAT=pretty writes lines for people, not JSON', async () => {
    const service = await startService(['--config', CONFIG], { SERVICE_API_KEY: KEY, LOG_FORMAT: 'pretty' });
    expect(await service.stop()).toBe(0);
    expect(service.lines[1]).toMatch(/INFO.*listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(() => JSON.parse(service.lines[0]!)).toThrow();
  });

  it.each([
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of: fatal, error, warn, info, debug, trace, silent'],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT must be one of: json, pretty'],
    [{ METRICS: 'yes' }, 'METRICS must be 1 or 0 (true or false)'],
  ])('refuses %j on one line', async (env, message) => {
    const result = await runToExit(['--config', CONFIG], { SERVICE_API_KEY: KEY, ...env });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`authlayer: ${message}\n`);
  });
});
