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

  it('asks again over one kept-alive connection', async () => {
    const sockets = new Set<unknown>();
    const pooled = await serve((req, res) => {
      sockets.add(req.socket);
      res.setHeader('content-type', 'application/json').end('{"n":1}');
    });
    try {
      for (let i = 0; i < 3; i += 1) {
        await expect(fetchJsonObject(`${pooled.url}/`, { timeoutMs: 2000, maxBytes: 1024 })).resolves.toEqual({ n: 1 });
      }
      expect({ requests: pooled.hits(), connections: sockets.size }).toEqual({ requests: 3, connections: 1 });
    } finally {
      await pooled.close();
    }
  });

  it('sends a request once more when the server drops the pooled connection it was sent on', async () => {
    // The keep-alive race, made certain: the server closes a kept-alive connection on its second
    // request without answering, as one whose idle timeout ran out just as the request left.
    const served = new WeakMap<object, number>();
    const seen: string[] = [];
    const racing = await serve((req, res) => {
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      if (count === 2) return void req.socket.destroy();
      res.setHeader('content-type', 'application/json').end('{"ok":true}');
    });
    const ask = () =>
      fetchJsonObject(`${racing.url}/`, { timeoutMs: 2000, maxBytes: 1024, observe: (r) => seen.push(r) });
    try {
      await expect(ask()).resolves.toEqual({ ok: true });
      await expect(ask()).resolves.toEqual({ ok: true });
      expect({ requests: racing.hits(), observed: seen }).toEqual({ requests: 3, observed: ['ok', 'ok'] });
    } finally {
      await racing.close();
    }
  });

  it.each([
    ['user info', (url: string) => url.replace('http://', 'http://user:secret@')],
    ['another protocol', (url: string) => url.replace('http://', 'ftp://')],
    ['no URL at all', () => 'not a url'],
  ])('refuses a URL with %s as unreachable, before any request', async (_name, change) => {
    const before = server.hits();
    await expect(
      fetchJsonObject(change(`${server.url}/ok`), { timeoutMs: 2000, maxBytes: 1024 }),
    ).rejects.toMatchObject({
      kind: 'unreachable',
    });
    expect(server.hits()).toBe(before);
  });

  it('is an Error whose message is the cause alone', () => {
    const failure = new FetchFailure('the metadata names another issuer', 'error');
    expect(failure).toBeInstanceOf(Error);
    expect(failure.level).toBe('error');
  });
});
