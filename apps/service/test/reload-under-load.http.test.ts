import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@authlayer/core';
import type { ReloadEvent } from '@authlayer/express';
import { createCaptureLogger } from '@authlayer/testkit';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.js';

// Contract, "Live changes without a restart": keys rotate under load, by editing keys_file and
// by replacing a key_file, and no request is answered by neither config or by a key that was
// not configured when it arrived.
const A1 = 'rotating-a-first-0123456789';
const A2 = 'rotating-a-second-0123456789';
const B1 = 'file-b-first-0123456789';
const B2 = 'file-b-second-0123456789';
const hex = (key: string) => createHash('sha256').update(key).digest('hex');
const CONCURRENCY = 6;
const PER_PHASE = 300;

interface Outcome {
  readonly key: string;
  readonly status: number | 'error';
  readonly arrivedAt: number;
}

let dir: string;
let server: Server;
let port: number;
let events: (ReloadEvent & { at: number })[];
let connections = 0;
const arrivals = new Map<string, number>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'authlayer-rotate-'));
  writeFileSync(join(dir, 'keys.yaml'), `- name: a\n  sha256: "${hex(A1)}"\n`);
  writeFileSync(join(dir, 'b.key'), `${B1}\n`);
  const path = join(dir, 'service.yaml');
  writeFileSync(
    path,
    `auth:\n  api_keys:\n    keys_file: ${dir}/keys.yaml\n    keys:\n      - name: b\n        key_file: ${dir}/b.key\n` +
      'reload:\n  watch: true\n' +
      // A GET that needs a key: a 401 to a POST closes its connection (the upload is never read).
      "access:\n  'GET /healthz': authenticated\n",
  );
  events = [];
  const app = await createApp(await loadConfig(path), {
    env: {},
    logger: createCaptureLogger(),
    onReload: (event) => events.push({ ...event, at: performance.now() }),
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  // When each request arrived, in the same turn in which the middleware picks its config.
  server.on('request', (req) => arrivals.set(String(req.headers['x-request-id']), performance.now()));
  server.on('connection', () => void connections++);
  server.on('close', () => void app.shutdown());
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** One keep-alive connection sending requests in a loop, each with one of the four keys. */
async function clientLoop(id: number, outcomes: Outcome[], until: () => boolean): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const keys = [A1, A2, B1, B2];
  // Bounded: the phases end long before this many requests.
  for (let n = 0; !until() && n < 20_000; n++) {
    const key = keys[(id + n) % keys.length]!;
    const requestId = `c${id}-${n}`;
    const status = await new Promise<number | 'error'>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/healthz',
          agent,
          headers: { 'X-API-Key': key, 'X-Request-Id': requestId },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve('error'));
      req.end();
    });
    outcomes.push({ key, status, arrivedAt: arrivals.get(requestId) ?? Number.NaN });
  }
  agent.destroy();
}

/** Resolves once a reload succeeded after `seen` events (a failed one, of a half-written file, may come first). */
async function reloaded(seen: number): Promise<number> {
  while (true) {
    const ok = events.slice(seen).find((event) => event.result === 'ok');
    if (ok !== undefined) return ok.at;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('rotation under load (reload.watch)', () => {
  it('answers every request by the config it arrived under: no 5xx, no dropped connection', async () => {
    const outcomes: Outcome[] = [];
    let done = false;
    const loops = Array.from({ length: CONCURRENCY }, (_, id) => clientLoop(id, outcomes, () => done));
    const served = (count: number) =>
      new Promise<void>((resolve) => {
        const start = outcomes.length;
        const poll = () => (outcomes.length - start >= count ? resolve() : setImmediate(poll));
        poll();
      });

    await served(PER_PHASE);
    // Rotation 1: keys_file edited in place, A1 → A2.
    let seen = events.length;
    writeFileSync(join(dir, 'keys.yaml'), `- name: a\n  sha256: "${hex(A2)}"\n`);
    const rotatedA = await reloaded(seen);
    await served(PER_PHASE);
    // Rotation 2: key_file replaced by a rename (as a deploy tool writes it), B1 → B2.
    seen = events.length;
    writeFileSync(join(dir, 'b.key.new'), `${B2}\n`);
    renameSync(join(dir, 'b.key.new'), join(dir, 'b.key'));
    const rotatedB = await reloaded(seen);
    await served(PER_PHASE);
    done = true;
    await Promise.all(loops);

    const configured = (key: string, at: number) =>
      key === A1 ? at < rotatedA : key === A2 ? at > rotatedA : key === B1 ? at < rotatedB : at > rotatedB;
    const wrong = outcomes.filter(({ key, status, arrivedAt }) => status !== (configured(key, arrivedAt) ? 200 : 401));
    expect(wrong).toEqual([]);
    expect(outcomes.length).toBeGreaterThanOrEqual(3 * PER_PHASE);
    // Each loop kept its one keep-alive connection from the first request to the last.
    expect(connections).toBe(CONCURRENCY);
    // Both keys of each rotation served before and after it.
    const okFor = (key: string) => outcomes.filter((outcome) => outcome.key === key && outcome.status === 200).length;
    expect([A1, A2, B1, B2].map(okFor).every((count) => count > 0)).toBe(true);
  });
});
