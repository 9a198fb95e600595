import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { startService, writeConfig } from './cli.js';

// SIGHUP to the reference service with WORKERS=2 reloads every worker (contract, "Live changes
// without a restart"): each answers with the new config.
const OLD = 'sighup-old-key-0123456789';
const NEW = 'sighup-new-key-0123456789';
const hex = (key: string) => createHash('sha256').update(key).digest('hex');

let service: Awaited<ReturnType<typeof startService>>;
let keysFile: string;
beforeAll(async () => {
  keysFile = writeConfig(`- name: rotating\n  sha256: "${hex(OLD)}"\n`);
  const config = writeConfig(`auth:\n  api_keys:\n    keys_file: ${keysFile}\n`);
  service = await startService(['--config', config], { WORKERS: '2' });
});
afterAll(() => service.stop());

/** Resolves once `count` stderr lines match (already seen, or still to come); each parsed. */
function linesMatching(match: RegExp, count: number): Promise<Record<string, unknown>[]> {
  return new Promise((resolve) => {
    const check = () => {
      const found = service.lines.filter((line) => match.test(line));
      if (found.length < count) return;
      service.child.stderr?.off('data', check);
      // The reader splits lines after the data event: give it its turn.
      setImmediate(() => resolve(found.map((line) => JSON.parse(line) as Record<string, unknown>)));
    };
    service.child.stderr?.on('data', () => setImmediate(check));
    check();
  });
}

/** One request on a new connection (so the cluster may hand it to either worker); POST for /invoke. */
function get(path: string, key: string, requestId: string): Promise<{ status: number; body: string }> {
  const post = path === '/invoke';
  return new Promise((resolve, reject) => {
    const req = request(`${service.url}${path}`, {
      agent: false,
      method: post ? 'POST' : 'GET',
      headers: {
        'X-API-Key': key,
        'X-Request-Id': requestId,
        Connection: 'close',
        ...(post ? { 'Content-Type': 'application/json' } : {}),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(post ? '{"query":"q"}' : undefined);
  });
}

describe('SIGHUP with WORKERS=2', () => {
  it('reaches both workers: each reloads, and each answers with the new key only', async () => {
    writeFileSync(keysFile, `- name: rotating\n  sha256: "${hex(NEW)}"\n`);
    service.child.kill('SIGHUP');
    const reloaded = await linesMatching(/config reloaded: generation 2 serves/, 2);
    const workers = new Set(reloaded.map((line) => line.pid));
    expect(workers.size).toBe(2);
    await linesMatching(/SIGHUP: reloading the config in 2 workers/, 1);
    // Requests on new connections until the audit lines show both workers answered (bounded).
    const answeredBy = new Set<unknown>();
    for (let attempt = 0; attempt < 40 && answeredBy.size < 2; attempt++) {
      const id = `sighup-${attempt}`;
      const health = await get('/healthz', NEW, `${id}-health`);
      expect(JSON.parse(health.body).config).toMatchObject({ generation: 2, last_reload_error: null });
      expect((await get('/invoke', NEW, id)).status).toBe(200);
      expect((await get('/invoke', OLD, `${id}-old`)).status).toBe(401);
      const [audit] = await linesMatching(new RegExp(`"requestId":"${id}"`), 1);
      answeredBy.add(audit!.pid);
    }
    expect(answeredBy).toEqual(workers);
  });
});
