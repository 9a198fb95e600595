// What /forward-auth adds to a request through nginx: the same nginx proxies to the same upstream
// (an nginx server that answers 200 with a short text), once plainly and once with the
// auth_request block of docs/forward-auth.md in front (API key mode, one key, a rule object).
// Both are loaded by autocannon in alternating slices, so drift of the machine hits both alike.
// Prints p50/p99 latency and requests per second of each, and the difference of the medians.
//
//   pnpm bench:forward-auth [--connections 10] [--slices 6] [--slice-seconds 2]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '10' },
    slices: { type: 'string', default: '6' },
    'slice-seconds': { type: 'string', default: '2' },
  },
});
const KEY = 'bench-forward-auth-key-0123456789';
const DOC = new URL('../../docs/forward-auth.md', import.meta.url);
const block = /runs this block[^\n]*\n```nginx\n([\s\S]*?)```/.exec(readFileSync(DOC, 'utf8'))[1];

const { createApp } = await import('../../apps/service/dist/app.js');
const service = await createApp(
  {
    auth: { mode: 'api_key', api_keys: { keys: [{ name: 'bench', env_var: 'BENCH_KEY', roles: ['reader'] }] } },
    roles: [{ name: 'reader', permissions: ['reports:read'] }],
    access: { 'GET /reports/:id': { permissions: ['reports:read'] } },
    forward_auth: { enabled: true },
  },
  { env: { BENCH_KEY: KEY }, logger: { info() {}, warn() {}, error() {} } },
);
const listening = service.listen(0, '127.0.0.1');
await once(listening, 'listening');
const servicePort = listening.address().port;

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}
const [plain, guarded, upstream] = [await freePort(), await freePort(), await freePort()];
const prefix = mkdtempSync(join(tmpdir(), 'authlayer-bench-nginx-'));
chmodSync(prefix, 0o755);
const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'];
for (const dir of temp) {
  mkdirSync(join(prefix, dir));
  chmodSync(join(prefix, dir), 0o777);
}
const conf = `worker_processes 1;
pid ${prefix}/nginx.pid;
error_log stderr notice;
events { worker_connections 1024; }
http {
  access_log off;
  ${temp.map((dir) => `${dir}_temp_path ${prefix}/${dir};`).join('\n  ')}
  server { listen 127.0.0.1:${upstream}; location / { default_type text/plain; return 200 "ok\\n"; } }
  server { listen 127.0.0.1:${plain}; location / { proxy_pass http://127.0.0.1:${upstream}; } }
  ${block
    .replace('listen 8000;', `listen 127.0.0.1:${guarded};`)
    .replace('127.0.0.1:9000', `127.0.0.1:${upstream}`)
    .replace('127.0.0.1:8080', `127.0.0.1:${servicePort}`)}
}
`;
writeFileSync(join(prefix, 'nginx.conf'), conf);
const nginx = spawn('/usr/sbin/nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
await new Promise((resolve, reject) => {
  let log = '';
  nginx.stderr.setEncoding('utf8');
  nginx.stderr.on('data', (chunk) => {
    log += chunk;
    if (log.includes('start worker process')) resolve();
  });
  nginx.once('exit', (code) => reject(new Error(`nginx exited (${code}):\n${log}`)));
});

const load = (port) =>
  autocannon({
    url: `http://127.0.0.1:${port}/reports/7`,
    headers: { 'x-api-key': KEY },
    connections: Number(values.connections),
    duration: Number(values['slice-seconds']),
  });
const samples = { plain: [], guarded: [] };
// Warm-up, then alternating slices.
await load(guarded);
await load(plain);
for (let slice = 0; slice < Number(values.slices); slice += 1) {
  for (const [name, port] of slice % 2 === 0
    ? [
        ['plain', plain],
        ['guarded', guarded],
      ]
    : [
        ['guarded', guarded],
        ['plain', plain],
      ]) {
    const result = await load(port);
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    samples[name].push(result);
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const row = (name) => ({
  name,
  p50: median(samples[name].map((r) => r.latency.p50)),
  p99: median(samples[name].map((r) => r.latency.p99)),
  rps: median(samples[name].map((r) => r.requests.average)),
});
const rows = [row('plain'), row('guarded')];
console.log(
  `connections ${values.connections}, ${values.slices} slices of ${values['slice-seconds']} s each, medians:`,
);
const connections = Number(values.connections);
// Time per request from the throughput (connections / req/s): finer than autocannon's latency
// histogram, whose values are whole milliseconds.
const perRequest = (rps) => (1000 * connections) / rps;
for (const { name, p50, p99, rps } of rows) {
  const each = perRequest(rps).toFixed(3);
  console.log(`${name.padEnd(8)} ${Math.round(rps)} req/s  ${each} ms per request  p50 ${p50} ms  p99 ${p99} ms`);
}
const added = (perRequest(rows[1].rps) - perRequest(rows[0].rps)).toFixed(3);
console.log(`added by /forward-auth: ${added} ms per request at ${connections} connection(s)`);

nginx.kill('SIGQUIT');
await once(nginx, 'exit');
rmSync(prefix, { recursive: true, force: true });
listening.close();
await service.shutdown();
