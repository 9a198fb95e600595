import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, openRawConnection } from '@authlayer/testkit';
import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { continueAfterAuthentication, createAuthMiddleware, errorHandler } from '../src/index.js';

const KEY = 'k3y-for-the-continue-tests';
const QUERY = '{"query":"q"}';
let server: Server;
let origin: string;

async function listen(app: express.Express, wire: boolean): Promise<Server> {
  const created = createServer(app);
  if (wire) continueAfterAuthentication(created, app);
  await new Promise<void>((resolve) => created.listen(0, '127.0.0.1', resolve));
  return created;
}

async function userApp() {
  const auth = await createAuthMiddleware(
    { auth: { mode: 'api_key' } },
    { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() },
  );
  const app = express();
  app.post('/invoke', auth, express.json(), (req, res) => res.json(req.body));
  app.use(errorHandler({ logger: createCaptureLogger() }));
  return app;
}

beforeAll(async () => {
  server = await listen(await userApp(), true);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const head = (key: string | null) =>
  `POST /invoke HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${QUERY.length}\r\n${key === null ? '' : `X-API-Key: ${key}\r\n`}\r\n`;

describe('continueAfterAuthentication: Expect: 100-continue', () => {
  it.each([
    ['no credentials', null],
    ['a wrong key', 'wrong'],
  ])('with %s: a 401 first, never 100 Continue, and the connection closes', async (_name, key) => {
    const connection = await openRawConnection(origin);
    connection.write(head(key));
    const response = await connection.nextResponse();
    expect(response.status).toBe(401);
    expect(response.headers.connection).toBe('close');
    await connection.closed;
  });

  it('authenticated: 100 Continue, then the body is read and answered', async () => {
    const connection = await openRawConnection(origin);
    connection.write(head(KEY));
    expect((await connection.nextResponse()).status).toBe(100);
    connection.write(QUERY);
    const response = await connection.nextResponse();
    expect([response.status, JSON.parse(response.body)]).toEqual([200, { query: 'q' }]);
    connection.destroy();
  });

  it("without it, Node's default sends 100 Continue before authentication (why the helper exists)", async () => {
    const plain = await listen(await userApp(), false);
    const connection = await openRawConnection(`http://127.0.0.1:${(plain.address() as AddressInfo).port}`);
    connection.write(head(null));
    expect((await connection.nextResponse()).status).toBe(100);
    connection.destroy();
    await new Promise<void>((resolve) => plain.close(() => resolve()));
  });
});
