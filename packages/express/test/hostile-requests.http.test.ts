import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, openRawConnection, startLoopbackServer, type LoopbackServer } from '@authlayer/testkit';
import express from 'express';
import { createAuthMiddleware, errorHandler } from '../src/index.js';

const KEY = 'k3y-for-the-hostile-tests';
let server: LoopbackServer;

beforeAll(async () => {
  const config = { auth: { mode: 'api_key', api_keys: { allow_bearer: true } } };
  const auth = await createAuthMiddleware(config, { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() });
  const app = express();
  app.post('/invoke', auth, express.json(), (req, res) => res.json({ userId: req.auth?.userId, body: req.body }));
  app.use(errorHandler({ logger: createCaptureLogger() }));
  server = await startLoopbackServer(app);
});
afterAll(() => server.close());

/** Sends one request by hand and returns its response, the connection left open. */
async function send(headers: string[], body = '') {
  const connection = await openRawConnection(server.origin);
  connection.write(`POST /invoke HTTP/1.1\r\nHost: x\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`);
  return { connection, response: await connection.nextResponse() };
}
const json = (body: string) => ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`];
const QUERY = '{"query":"q"}';

describe('an unauthenticated upload is never drained', () => {
  // Node keeps only the first maxHeadersCount headers in req.headers (2000 lines by default).
  const filler = Array.from({ length: 2000 }, (_, i) => `X-F${i}: 1`);

  it.each([
    ['Content-Length', 'Content-Length: 67108864'],
    ['Transfer-Encoding', 'Transfer-Encoding: chunked'],
  ])('closes the connection when %s comes after 2000 other headers', async (_name, framing) => {
    const { connection, response } = await send([...filler, framing, 'Connection: keep-alive']);
    expect(response.status).toBe(401);
    expect(response.headers.connection).toBe('close');
    await connection.closed;
  });

  it('keeps a bodyless refused request alive', async () => {
    const { connection, response } = await send(['Content-Length: 0']);
    expect(response.status).toBe(401);
    expect(response.headers.connection).toBe('keep-alive');
    connection.destroy();
  });
});

describe('several credential headers are refused, none guessed', () => {
  it.each([
    ['a good then a bad API key', [`X-API-Key: ${KEY}`, 'X-API-Key: bad']],
    ['a bad then a good API key', ['X-API-Key: bad', `X-API-Key: ${KEY}`]],
    ['a good then a bad Bearer', [`Authorization: Bearer ${KEY}`, 'Authorization: Bearer garbage']],
    ['a bad then a good Bearer', ['Authorization: Bearer garbage', `Authorization: Bearer ${KEY}`]],
  ])('%s → 401 credentials_invalid', async (_name, headers) => {
    const { connection, response } = await send([...headers, ...json(QUERY)], QUERY);
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toEqual({ error: 'unauthorized', message: 'the credentials are not valid' });
    expect(response.body).not.toContain(KEY);
    connection.destroy();
  });
});

describe('malformed and empty credential headers', () => {
  it('Bearer<TAB>key is malformed (invalid), not missing', async () => {
    const { connection, response } = await send([`Authorization: Bearer\t${KEY}`, ...json(QUERY)], QUERY);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
    connection.destroy();
  });

  it.each([
    ['one empty API key header', ['X-API-Key: ']],
    ['two empty API key headers', ['X-API-Key: ', 'X-API-Key: ']],
  ])('%s plus a valid Bearer → 200 (an empty header counts as not sent)', async (_name, empty) => {
    const { connection, response } = await send([...empty, `Authorization: Bearer ${KEY}`, ...json(QUERY)], QUERY);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ userId: 'SERVICE_API_KEY', body: { query: 'q' } });
    connection.destroy();
  });
});
