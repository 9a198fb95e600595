// Live reload with 10 000 API keys: how long `auth.reload()` takes (read the keys_file, check
// it, build the handler, swap), and what requests see while it runs. A keep-alive loop of
// concurrent requests on loopback runs during 10 reloads; each request records when it started
// and ended, and whether a reload was in progress then.
//
//   pnpm --filter @authlayer/bench reload
import { loadConfig } from '@authlayer/core';
import { createAuthMiddleware } from '@authlayer/express';
import express from 'express';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KEYS = 10_000;
const RELOADS = 10;
const CONCURRENCY = 16;
const dir = mkdtempSync(join(tmpdir(), 'authlayer-bench-reload-'));
const keys = Array.from({ length: KEYS }, (_, i) => `bench-reload-key-${i}-0123456789`);
const hex = (key) => createHash('sha256').update(key).digest('hex');
writeFileSync(
  join(dir, 'keys.yaml'),
  keys
    .map((key, i) => `- name: client-${i}\n  sha256: "${hex(key)}"\n  roles: [user]\n  created: 2026-11-01\n`)
    .join(''),
);
writeFileSync(join(dir, 'service.yaml'), `auth:\n  api_keys:\n    keys_file: ${dir}/keys.yaml\n`);
const logger = { info() {}, warn() {}, error() {} };

let started = performance.now();
const auth = await createAuthMiddleware(await loadConfig(join(dir, 'service.yaml')), { logger });
const firstLoadMs = performance.now() - started;
const app = express();
app.get('/r', auth, (_req, res) => void res.end('ok'));
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address();

let reloading = false;
let done = false;
const stats = { total: 0, duringReload: 0, errors: 0, statuses: {}, maxMs: 0, maxDuringReloadMs: 0 };
async function loop(id) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let n = 0; !done && n < 1_000_000; n++) {
    const key = keys[(id * 7919 + n * 104729) % KEYS];
    const begin = performance.now();
    const during = reloading;
    const status = await new Promise((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/r', agent, headers: { 'X-API-Key': key } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', () => resolve('error'));
      req.end();
    });
    const ms = performance.now() - begin;
    stats.total++;
    stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
    if (status === 'error') stats.errors++;
    stats.maxMs = Math.max(stats.maxMs, ms);
    if (during || reloading) {
      stats.duringReload++;
      stats.maxDuringReloadMs = Math.max(stats.maxDuringReloadMs, ms);
    }
  }
  agent.destroy();
}
const loops = Array.from({ length: CONCURRENCY }, (_, id) => loop(id));
await new Promise((resolve) => setTimeout(resolve, 1000));
const reloadMs = [];
for (let i = 0; i < RELOADS; i++) {
  reloading = true;
  started = performance.now();
  await auth.reload();
  reloadMs.push(performance.now() - started);
  reloading = false;
  await new Promise((resolve) => setTimeout(resolve, 300));
}
done = true;
await Promise.all(loops);
server.close();
await auth.close();
rmSync(dir, { recursive: true, force: true });
const sorted = [...reloadMs].sort((a, b) => a - b);
const round = (ms) => Math.round(ms * 10) / 10;
console.log(
  JSON.stringify(
    {
      keys: KEYS,
      first_load_ms: round(firstLoadMs),
      reload_ms: { min: round(sorted[0]), median: round(sorted[RELOADS >> 1]), max: round(sorted.at(-1)) },
      requests: stats.total,
      requests_during_reloads: stats.duringReload,
      statuses: stats.statuses,
      errors: stats.errors,
      max_latency_ms: round(stats.maxMs),
      max_latency_during_reload_ms: round(stats.maxDuringReloadMs),
    },
    null,
    2,
  ),
);
