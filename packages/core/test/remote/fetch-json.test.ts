import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { FetchFailure, fetchJsonObject } from '../../src/remote/fetch-json.js';
import { serve } from './loopback.js';

const ROUTES: Record<string, (res: ServerResponse) => void> = {
  '/ok': (res) => res.setHeader('content-type', 'application/json').end('{"a":1}'),
  '/fail': (res) => res.writeHead(500).end('<html>error</html>'),
  '/redirect': (res) => res.writeHead(302, { location: '/ok' }).end(),
  '/list': (res) => res.end('[1]'),
  '/null': (res) => res.end('null'),
  '/garbage': (res) => res.end('not json'),
  '/declared-large': (res) => res.writeHead(200, { 'content-length': '2048' }).end('x'.repeat(2048)),
  '/chunked-large': (res) => {
    res.write('x'.repeat(700));
    res.end('x'.repeat(700));
  },
  // Never answers: the client's timeout ends the exchange.
  '/hang': () => undefined,
  // Sends the head at once, the body never.
  '/hang-body': (res) => res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders(),
};

let server: Awaited<ReturnType<typeof serve>>;
let closedUrl: string;
beforeAll(async () => {
  server = await serve((req, res) => ROUTES[req.url ?? '']?.(res));
  const closed = await serve(() => undefined);
  closedUrl = closed.url;
  await closed.close();
});
afterAll(() => server.close());

const fetchPath = (path: string, timeoutMs = 2000) =>
  fetchJsonObject(`${server.url}${path}`, { timeoutMs, maxBytes: 1024 });

describe('fetchJsonObject', () => {
  it('reads a JSON object from a 200 and tells the observer', async () => {
    const seen: string[] = [];
    await expect(
      fetchJsonObject(`${server.url}/ok`, { timeoutMs: 2000, maxBytes: 1024, observe: (r) => seen.push(r) }),
    ).resolves.toEqual({ a: 1 });
    expect(seen).toEqual(['ok']);
  });

  it.each([
    ['a 500', '/fail', 'not a 200'],
    ['a redirect (never followed)', '/redirect', 'not a 200'],
    ['a JSON list', '/list', 'not a JSON object'],
    ['JSON null', '/null', 'not a JSON object'],
    ['no JSON at all', '/garbage', 'not a JSON object'],
    ['a declared body over maxBytes', '/declared-large', 'too large'],
    ['a chunked body over maxBytes', '/chunked-large', 'too large'],
  ])('refuses %s: %s', async (_name, path, kind) => {
    await expect(fetchPath(path)).rejects.toMatchObject({ name: 'FetchFailure', kind, level: 'warn', message: kind });
  });

  it('says timed out for an answer that never comes, or a body that never ends', async () => {
    await expect(fetchPath('/hang', 100)).rejects.toMatchObject({ kind: 'timed out' });
    await expect(fetchPath('/hang-body', 100)).rejects.toMatchObject({ kind: 'timed out' });
  });

  it('says unreachable for a closed port, and tells the observer of the error', async () => {
    const seen: string[] = [];
    await expect(
      fetchJsonObject(closedUrl, { timeoutMs: 2000, maxBytes: 1024, observe: (r) => seen.push(r) }),
    ).rejects.toMatchObject({ kind: 'unreachable' });
    expect(seen).toEqual(['error']);
  });

  it('sends the given method, headers and body', async () => {
    const echo = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => res.end(JSON.stringify({ method: req.method, type: req.headers['content-type'], body })));
    });
    const init = { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' };
    await expect(fetchJsonObject(echo.url, { timeoutMs: 2000, maxBytes: 1024, init })).resolves.toEqual({
      method: 'POST',
      type: 'text/plain',
      body: 'hello',
    });
    await echo.close();
  });

  it('is an Error whose message is the cause alone', () => {
    const failure = new FetchFailure('the metadata names another issuer', 'error');
    expect(failure).toBeInstanceOf(Error);
    expect(failure.level).toBe('error');
  });
});
