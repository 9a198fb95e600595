// How long a revocation takes to reach every replica: REPLICAS (10) reference-service processes on
// one redis-server; for each of REVOCATIONS (100) tokens, verified before on every replica (so
// cached), the change is made with `revoke()` in this process (connectRevocations, what `--revoke`
// does minus Node's start-up) or, with MODE=cli, by spawning `main.js --revoke`, whose `revoked`
// line says Redis took it. From the start, every replica is polled back to back (one keep-alive
// socket each) until its first 401. Reports, per revocation, the slowest replica from the start
// and from the return (the `revoked` line); writes results/revocation.md (OUT changes it).
//
//   pnpm --filter @authlayer/bench revocation-propagation
//   REPLICAS=3 REVOCATIONS=25 MODE=cli pnpm --filter @authlayer/bench revocation-propagation
import { checkRevocationEntry, connectRevocations } from '@authlayer/express';
import { SignJWT } from 'jose';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const REVOCATIONS = Number(process.env.REVOCATIONS ?? 100);
const REPLICAS = Number(process.env.REPLICAS ?? 10);
const MODE = process.env.MODE === 'cli' ? 'cli' : 'library';
const PAUSE_MS = Number(process.env.PAUSE_MS ?? 100);
const OUT = process.env.OUT ?? 'results/revocation.md';
const MAIN = new URL('../../apps/service/dist/main.js', import.meta.url).pathname;
const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef';
const children = [];
// A failed run leaves no redis-server or replica behind.
process.on('exit', () => children.forEach((child) => child.exitCode === null && child.kill('SIGTERM')));

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Spawns a child and resolves with its first line (stdout or stderr) that matches. */
async function spawnUntil(command, args, env, match, keep = true) {
  const child = spawn(command, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  if (keep) children.push(child);
  const lines = [child.stdout, child.stderr].map((stream) => createInterface({ input: stream }));
  const line = await new Promise((resolve, reject) => {
    for (const reader of lines) reader.on('line', (text) => match.test(text) && resolve(text));
    child.once('exit', (code) => reject(new Error(`${command} exited (${code})`)));
  });
  return { child, line };
}

const dir = mkdtempSync(join(tmpdir(), 'authlayer-bench-'));
const port = await freePort();
const redisArgs = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
await spawnUntil('redis-server', redisArgs, {}, /Ready to accept/);
const store = `redis://127.0.0.1:${port}/0`;
const config = join(dir, 'service.yaml');
writeFileSync(
  config,
  `auth:\n  mode: jwt\n  jwt: { public_key_env: JWT_SECRET, algorithms: [HS256], issuer: bench, audience: bench }\nrevocation: { store: "${store}" }\n`,
);
const serviceEnv = { JWT_SECRET: SECRET, LOG_LEVEL: 'warn' };
/** Starts a replica on a free port and resolves once its `/readyz` says the list is loaded. */
async function startReplica() {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, '--config', config], {
    env: { PATH: process.env.PATH, ...serviceEnv, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const url = new URL(`http://127.0.0.1:${port}`);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`a replica exited (${child.exitCode})`);
    const ready = await fetch(new URL('/readyz', url)).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) return { url, agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const replicas = await Promise.all(Array.from({ length: REPLICAS }, startReplica));

const key = new TextEncoder().encode(SECRET);
const now = Math.floor(Date.now() / 1000);
const jti = (i) => `bench-${now}-${i}`;
const tokens = await Promise.all(
  Array.from({ length: REVOCATIONS }, (_, i) =>
    new SignJWT({ sub: `user-${i}`, jti: jti(i), iss: 'bench', aud: 'bench' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(now)
      .setExpirationTime(now + 900)
      .sign(key),
  ),
);
/** One `POST /invoke` on the replica's own keep-alive socket; resolves with its status. */
const status = ({ url, agent }, token) =>
  new Promise((resolve, reject) => {
    const body = '{"query":"r"}';
    const req = request(
      url,
      {
        method: 'POST',
        path: '/invoke',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': body.length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
for (const token of tokens)
  for (const replica of replicas) if ((await status(replica, token)) !== 200) throw new Error('not accepted before');

const admin = MODE === 'library' ? await connectRevocations({ store }) : null;
/** Makes the change; resolves when it returned (library) or printed its `revoked` line (cli). */
async function revoke(i) {
  if (admin !== null) return admin.revoke(checkRevocationEntry(`jti:${jti(i)}`), 900);
  const args = [MAIN, '--config', config, '--revoke', `jti:${jti(i)}`, '--ttl', '900'];
  await spawnUntil(process.execPath, args, serviceEnv, /^revoked /, false);
}

const samples = [];
const load = { before: loadavg()[0] };
for (const [i, token] of tokens.entries()) {
  const started = performance.now();
  let returnedAt = Infinity;
  const polls = replicas.map(async (replica) => {
    while ((await status(replica, token)) !== 401)
      if (performance.now() - returnedAt > 10_000) throw new Error('not refused within 10 s of the change');
    return performance.now() - started;
  });
  await revoke(i);
  returnedAt = performance.now();
  const returned = returnedAt - started;
  const times = await Promise.all(polls);
  samples.push({ returned, times, slowest: Math.max(...times) });
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
}
load.after = loadavg()[0];
admin?.close();
for (const { agent } of replicas) agent.destroy();
for (const child of children.reverse()) child.kill('SIGTERM');
await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : null)));

/** Nearest-rank percentile. */
const pct = (values, p) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const row = (label, values) =>
  `| ${label} (${values.length}) | ${[50, 95, 99].map((p) => pct(values, p).toFixed(1)).join(' | ')} | ${Math.max(...values).toFixed(1)} |`;
const how =
  MODE === 'library'
    ? '`revoke()` (connectRevocations, in the bench process)'
    : '`main.js --revoke` (a process per change)';
const until = MODE === 'library' ? 'its return' : 'its `revoked` line';
const report = [
  '# Revocation propagation (`pnpm --filter @authlayer/bench revocation-propagation`)',
  '',
  `${new Date().toISOString().slice(0, 10)}, Node.js ${process.version}, ${cpus().length} cores, 1-minute load ${load.before.toFixed(1)} before, ${load.after.toFixed(1)} after.`,
  `${REVOCATIONS} revocations by ${how}, ${REPLICAS} reference-service processes (JWT HS256, \`LOG_LEVEL=warn\`) on one redis-server (\`--save '' --appendonly no\`), all on loopback.`,
  `Each token verified on every replica first (cached); from the change's start every replica is polled back to back (\`POST /invoke\`, one keep-alive socket each) until its first 401; ${PAUSE_MS} ms between revocations.`,
  '',
  '| ms | p50 | p95 | p99 | max |',
  '|---|--:|--:|--:|--:|',
  row(
    `the change, start to ${until}`,
    samples.map((s) => s.returned),
  ),
  row(
    `slowest replica, from ${until}`,
    samples.map((s) => s.slowest - s.returned),
  ),
  row(
    'slowest replica, from the start',
    samples.map((s) => s.slowest),
  ),
  row(
    'each replica, from the start',
    samples.flatMap((s) => s.times),
  ),
  '',
].join('\n');
writeFileSync(new URL(OUT, new URL('../', import.meta.url)), report);
process.stdout.write(report);
