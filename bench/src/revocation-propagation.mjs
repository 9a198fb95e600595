// How long a revocation takes to reach every replica: three reference-service processes on one
// redis-server; for each of REVOCATIONS tokens (each verified before on every replica, so cached),
// the clock starts just before `revoke()` (connectRevocations, as `--revoke` does) and stops, per
// replica, at its first 401 to a request polled back to back. Prints and writes the median and
// the maximum (results/revocation.md).
//
//   pnpm --filter @authlayer/bench revocation-propagation
import { checkRevocationEntry, connectRevocations } from '@authlayer/express';
import { SignJWT } from 'jose';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const REVOCATIONS = Number(process.env.REVOCATIONS ?? 25);
const REPLICAS = 3;
const MAIN = new URL('../../apps/service/dist/main.js', import.meta.url).pathname;
const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef';
const children = [];

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Spawns a child and resolves with its first line (stdout or stderr) that matches. */
async function spawnUntil(command, args, env, match) {
  const child = spawn(command, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines = [child.stdout, child.stderr].map((stream) => createInterface({ input: stream }));
  const line = await new Promise((resolve, reject) => {
    for (const reader of lines) reader.on('line', (text) => match.test(text) && resolve(text));
    child.once('exit', (code) => reject(new Error(`${command} exited (${code})`)));
  });
  return { child, line };
}

const port = await freePort();
await spawnUntil(
  'redis-server',
  ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  {},
  /Ready to accept/,
);
const store = `redis://127.0.0.1:${port}/0`;
const config = join(mkdtempSync(join(tmpdir(), 'authlayer-bench-')), 'service.yaml');
writeFileSync(
  config,
  `auth:\n  mode: jwt\n  jwt: { public_key_env: JWT_SECRET, algorithms: [HS256] }\nrevocation: { store: "${store}" }\n`,
);
const replicas = await Promise.all(
  Array.from({ length: REPLICAS }, async () => {
    const { line } = await spawnUntil(
      process.execPath,
      [MAIN, '--config', config],
      { PORT: '0', JWT_SECRET: SECRET },
      /listening on http/,
    );
    return /listening on (http:\/\/[^ "]+)/.exec(line)[1];
  }),
);

const key = new TextEncoder().encode(SECRET);
const now = Math.floor(Date.now() / 1000);
const tokens = await Promise.all(
  Array.from({ length: REVOCATIONS }, (_, i) =>
    new SignJWT({ sub: `user-${i}`, jti: `bench-${now}-${i}` })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(key),
  ),
);
const status = async (url, token) => {
  const res = await fetch(`${url}/invoke`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: '{"query":"r"}',
  });
  await res.arrayBuffer();
  return res.status;
};
for (const token of tokens)
  for (const url of replicas) if ((await status(url, token)) !== 200) throw new Error('not accepted before');

const admin = await connectRevocations({ store });
const perReplica = [];
const perRevocation = [];
for (const [i, token] of tokens.entries()) {
  const started = performance.now();
  await admin.revoke(checkRevocationEntry(`jti:bench-${now}-${i}`), 60);
  const times = await Promise.all(
    replicas.map(async (url) => {
      while ((await status(url, token)) !== 401)
        if (performance.now() - started > 5000) throw new Error('not refused in 5 s');
      return performance.now() - started;
    }),
  );
  perReplica.push(...times);
  perRevocation.push(Math.max(...times));
}
admin.close();
for (const child of children.reverse()) child.kill('SIGTERM');
await Promise.all(children.map((child) => (child.exitCode === null ? once(child, 'exit') : null)));

const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const ms = (value) => `${value.toFixed(1)} ms`;
const report = [
  '# Revocation propagation (`pnpm --filter @authlayer/bench revocation-propagation`)',
  '',
  `${REVOCATIONS} revocations, ${REPLICAS} service processes on one redis-server (loopback), ${new Date().toISOString().slice(0, 10)}, Node.js ${process.version}.`,
  'From just before `revoke()` to the first 401 of a replica polled back to back (each poll is a whole HTTP request).',
  '',
  '| | median | max |',
  '|---|---|---|',
  `| per replica (${perReplica.length} samples) | ${ms(median(perReplica))} | ${ms(Math.max(...perReplica))} |`,
  `| until every replica refuses (${perRevocation.length} samples) | ${ms(median(perRevocation))} | ${ms(Math.max(...perRevocation))} |`,
  '',
].join('\n');
writeFileSync(new URL('../results/revocation.md', import.meta.url), report);
process.stdout.write(report);
