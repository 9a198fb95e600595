import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { openRawConnection } from '../src/raw-connection.js';
import { startLoopbackServer, type LoopbackServer } from '../src/loopback-server.js';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.url === '/close') return res.socket?.destroy();
    if (req.url === '/empty') return res.writeHead(204).end();
    if (req.url === '/slow') return void res.writeHead(200, { 'Content-Length': '4' }).write('ab', () => res.end('cd'));
    res.setHeader('X-Seen', String(req.headers['x-a']));
    res.end('hello');
  });
});
afterAll(() => server.close());

describe('openRawConnection', () => {
  it('sends bytes as written and reads responses one by one, headers in lower case', async () => {
    const connection = await openRawConnection(server.origin);
    connection.write('GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nX-A: 2\r\n\r\n');
    expect(await connection.nextResponse()).toMatchObject({ status: 200, headers: { 'x-seen': '1' }, body: 'hello' });
    expect(await connection.nextResponse()).toMatchObject({ status: 200, headers: { 'x-seen': '2' } });
    expect(connection.bytesWritten()).toBeGreaterThan(0);
    connection.destroy();
    await connection.closed;
  });

  it('reads a response without Content-Length, and a body that arrives in parts', async () => {
    const connection = await openRawConnection(server.origin);
    connection.write('GET /empty HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await connection.nextResponse()).toMatchObject({ status: 204, body: '' });
    expect(await connection.nextResponse()).toMatchObject({ status: 200, body: 'abcd' });
    connection.destroy();
  });

  it('rejects when the server closes before a full response', async () => {
    const connection = await openRawConnection(server.origin);
    connection.write('GET /close HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect(connection.nextResponse()).rejects.toThrow('the connection closed before a full response');
  });
});
