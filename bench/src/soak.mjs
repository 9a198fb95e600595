// pnpm bench:soak — one million requests against the reference service (apps/service, built),
// mixing good, wrong and hostile credentials; after every step (100 000 requests) the service's
// RSS and heap (from its own /metrics), the step's p99, and every answer that is neither 2xx nor
// 4xx (there must be none). Not a test: never part of pnpm test. Options by environment:
// SOAK_REQUESTS (1000000), SOAK_STEP (100000), SOAK_CONNECTIONS (10), SOAK_LOG_LEVEL (info),
// SOAK_OUT (results/soak.md, relative to bench/).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:http';
import { AUDIENCE, ISSUER, soakCredentials } from './soak-credentials.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = join(HERE, '..', '..', 'apps', 'service', 'dist', 'main.js');
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const TOTAL = env('SOAK_REQUESTS', 1_000_000);
const STEP = env('SOAK_STEP', 100_000);
const CONNECTIONS = env('SOAK_CONNECTIONS', 10);
const BODY = JSON.stringify({ query: 'soak' });

/** Starts the service in JWT mode with /metrics on; resolves with its URL, the child and log counts. */
async function startService(publicPem) {
  const config = join(HERE, '..', '.cache', 'soak.yaml');
  writeFileSync(
    config,
    `auth:\n  mode: jwt\n  jwt:\n    public_key_env: SOAK_PUBLIC_KEY\n    issuer: ${ISSUER}\n    audience: ${AUDIENCE}\nmetrics: true\n`,
  );
  const child = spawn(process.execPath, [MAIN, '--config', config], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      SOAK_PUBLIC_KEY: publicPem,
      LOG_LEVEL: process.env.SOAK_LOG_LEVEL ?? 'info',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const levels = {};
  let url = null;
  const listening = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`)));
    createInterface({ input: child.stderr }).on('line', (line) => {
      // Cheap on the load side: only lines that are not info are parsed (and shown).
      const level = /^\{"level":"(\w+)"/.exec(line)?.[1] ?? 'not JSON';
      levels[level] = (levels[level] ?? 0) + 1;
      if (level !== 'info') console.error(`service ${level}: ${line.slice(0, 300)}`);
      const match = url === null ? /listening on (http:\/\/[^ "]+)/.exec(line) : null;
      if (match) resolve((url = match[1]));
    });
  });
  await listening;
  return { url, child, levels };
}

/** The service's own RSS and heap, read from its /metrics (prom-client's process metrics). */
async function memory(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name) =>
    Number(/^(\S+) (\S+)$/m.exec(text.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[2]);
  return { rss: read('process_resident_memory_bytes'), heap: read('nodejs_heap_size_used_bytes') };
}

/** One request; resolves with its status and latency (ms), or the error code of a failed connection. */
function send(agent, url, authorization) {
  const headers = { 'content-type': 'application/json', 'content-length': String(BODY.length) };
  if (authorization !== '') headers.authorization = authorization;
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}/invoke`, { method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0 }));
    });
    req.once('error', (error) => resolve({ status: error.code ?? 'error', ms: performance.now() - t0 }));
    req.end(BODY);
  });
}

/**
 * One step: `amount` requests over CONNECTIONS keep-alive connections (node:http; a 401 to a
 * request whose body was not read closes its connection, and the agent opens another), cycling
 * through the mix; latencies and statuses.
 */
async function step(url, amount, mix, offset) {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies = [];
  const status = {};
  let next = offset;
  let left = amount;
  const lane = async () => {
    while (left > 0) {
      left--;
      const { status: code, ms } = await send(agent, url, mix[next++ % mix.length]);
      latencies.push(ms);
      status[code] = (status[code] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, lane));
  agent.destroy();
  return { latencies, status, next };
}

/** Two good, one wrong and one hostile in every four, spread evenly. */
function mixOf({ good, wrong, hostile }) {
  const mix = [];
  for (let i = 0; i < good.length; i++)
    mix.push(good[i], wrong[i % wrong.length], good[(i * 7 + 1) % good.length], hostile[i % hostile.length]);
  return mix;
}

const MB = (bytes) => (bytes / 1048576).toFixed(1);

async function main() {
  console.error(`soak: minting credentials, starting the service (${MAIN})`);
  const credentials = await soakCredentials();
  const { url, child, levels } = await startService(credentials.publicPem);
  const mix = mixOf(credentials);
  const rows = [];
  const odd = [];
  const before = await memory(url);
  let offset = 0;
  const started = performance.now();
  for (let done = 0; done < TOTAL;) {
    const amount = Math.min(STEP, TOTAL - done);
    const result = await step(url, amount, mix, offset);
    offset = result.next;
    done += amount;
    result.latencies.sort((a, b) => a - b);
    const p99 = (result.latencies[Math.floor(result.latencies.length * 0.99)] ?? NaN).toFixed(1);
    const unexpected = Object.entries(result.status).filter(([code]) => !/^[24]\d\d$/.test(code));
    if (unexpected.length > 0) odd.push({ done, unexpected });
    const { rss, heap } = await memory(url);
    rows.push({ done, rss, heap, p99, status: result.status });
    console.error(`${done}: rss ${MB(rss)} MB, heap ${MB(heap)} MB, p99 ${p99} ms, ${JSON.stringify(result.status)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  const table = [
    `# Soak run (${new Date().toISOString().slice(0, 10)})`,
    '',
    `${TOTAL} requests to the reference service in JWT mode (RS256, public_key_env), ${CONNECTIONS} connections,`,
    `${(TOTAL / seconds).toFixed(0)} req/s over ${seconds.toFixed(0)} s; credentials per four requests: two good`,
    `(${credentials.good.length} distinct users), one wrong (${credentials.wrong.length} kinds), one hostile (${credentials.hostile.length} kinds).`,
    `LOG_LEVEL ${process.env.SOAK_LOG_LEVEL ?? 'info'}; service log lines by level: ${JSON.stringify(levels)}; exit code after SIGTERM: ${code}.`,
    `Before the run: RSS ${MB(before.rss)} MB, heap ${MB(before.heap)} MB.`,
    '',
    '| requests | RSS (MB) | heap used (MB) | p99 (ms) | statuses |',
    '|--:|--:|--:|--:|---|',
    ...rows.map(
      (r) =>
        `| ${r.done} | ${MB(r.rss)} | ${MB(r.heap)} | ${r.p99} | ${Object.entries(r.status)
          .map(([s, n]) => `${s}: ${n}`)
          .join(', ')} |`,
    ),
    '',
    odd.length === 0
      ? 'Answers neither 2xx nor 4xx (connection errors included): none.'
      : `Unexpected: ${JSON.stringify(odd)}`,
    '',
  ].join('\n');
  const out = join(HERE, '..', process.env.SOAK_OUT ?? 'results/soak.md');
  writeFileSync(out, table);
  console.log(table);
  if (odd.length > 0) process.exitCode = 1;
}

await main();
