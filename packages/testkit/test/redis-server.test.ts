import { afterAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { connect } from 'node:net';
import { startRedis, type RedisServer } from '../src/index.js';

/** One command (inline form) over a raw socket: the answer, or the connection's error code. */
async function ping(port: number, command = 'PING'): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  try {
    await Promise.race([once(socket, 'connect'), once(socket, 'error').then(([e]) => Promise.reject(e as Error))]);
    socket.write(`${command}\r\n`);
    const [data] = (await once(socket, 'data')) as [Buffer];
    return data.toString().trim();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  } finally {
    socket.destroy();
  }
}

describe('startRedis', () => {
  let redis: RedisServer;
  afterAll(() => redis.stop());

  it('runs a real redis-server on a loopback port, which can be killed and started again', async () => {
    redis = await startRedis();
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}/0`);
    expect(await ping(redis.port)).toBe('+PONG');
    await redis.kill();
    expect(await ping(redis.port)).toBe('ECONNREFUSED');
    // Nothing runs: pausing, resuming and stopping are harmless.
    redis.pause();
    redis.resume();
    await redis.stop();
    await redis.restart();
    expect(await ping(redis.port)).toBe('+PONG');
  });

  it('pauses: a command sent meanwhile is answered once it resumes', async () => {
    redis.pause();
    const socket = connect(redis.port, '127.0.0.1');
    await once(socket, 'connect');
    let answered = false;
    const answer = once(socket, 'data').then(([data]) => ((answered = true), String(data).trim()));
    socket.write('PING\r\n');
    // A PING of its own, answered by another server, proves the first one had time to arrive.
    const other = await startRedis();
    expect(await ping(other.port)).toBe('+PONG');
    await other.stop();
    expect(answered).toBe(false);
    redis.resume();
    expect(await answer).toBe('+PONG');
    socket.destroy();
  });

  it('appendOnly: a restart after a kill comes back with every write it took; without it, empty', async () => {
    const kept = await startRedis({ appendOnly: true });
    expect(await ping(kept.port, 'SET k v')).toBe('+OK');
    await kept.kill();
    await kept.restart();
    expect(await ping(kept.port, 'GET k')).toBe('$1\r\nv');
    await kept.stop();
    expect(await ping(redis.port, 'SET k v')).toBe('+OK');
    await redis.restart();
    expect(await ping(redis.port, 'GET k')).toBe('$-1');
  });
});
