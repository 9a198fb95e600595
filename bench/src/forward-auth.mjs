// What /forward-auth adds to a request through nginx: the same nginx proxies to the same upstream
// (an nginx server that answers 200 with a short text), once plainly and once with the
// auth_request block of docs/forward-auth.md in front (API key mode, one key, a rule object).
// Both are loaded by autocannon in alternating slices, so drift of the machine hits both alike.
// Prints p50/p99 latency, requests per second and CPU per request (nginx's worker, the service in a
// process of its own) of each, and the differences of the medians.
//
//   pnpm bench:forward-auth [--connections 10] [--slices 6] [--slice-seconds 2]
import { fork, spawn } from 'node:child_process';
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

const config = {
  auth: { mode: 'api_key', api_keys: { keys: [{ name: 'bench', env_var: 'BENCH_KEY', roles: ['reader'] }] } },
  roles: [{ name: 'reader', permissions: ['reports:read'] }],
  access: { 'GET /reports/:id': { permissions: ['reports:read'] } },
  forward_auth: { enabled: true },
};
const service = fork(new URL('./forward-auth-service.mjs', import.meta.url), {
  env: { ...process.env, BENCH_SERVICE_CONFIG: JSON.stringify(config), BENCH_KEY: KEY },
});
const [{ port: servicePort }] = await once(service, 'message');

/** CPU µs the service process used so far. */
async function serviceCpu() {
  service.send({ type: 'usage' });
  const [{ cpu }] = await once(service, 'message');
  return cpu.user + cpu.system;
}

/** CPU µs nginx's worker used so far (Linux /proc, 10 ms ticks). */
function nginxCpu() {
  const stat = readFileSync(`/proc/${nginxWorker}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

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
  # After a client connection's 1000th request nginx answers Connection: close; autocannon's next
  # request on it was sometimes reset (ECONNRESET). A load generator's artefact, not measured here.
  keepalive_requests 1000000;
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
let log = '';
await new Promise((resolve, reject) => {
  nginx.stderr.setEncoding('utf8');
  nginx.stderr.on('data', (chunk) => {
    log += chunk;
    if (log.includes('start worker process')) resolve();
  });
  nginx.once('exit', (code) => reject(new Error(`nginx exited (${code}):\n${log}`)));
});
// worker_processes 1: the one child of the master does all the proxying.
const nginxWorker = readFileSync(`/proc/${nginx.pid}/task/${nginx.pid}/children`, 'utf8').trim().split(' ')[0];

const reqErrors = [];
const load = (port) => {
  const run = autocannon({
    url: `http://127.0.0.1:${port}/reports/7`,
    headers: { 'x-api-key': KEY },
    connections: Number(values.connections),
    duration: Number(values['slice-seconds']),
  });
  run.on('reqError', (error) => reqErrors.push(String(error)));
  return run;
};
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
    const before = { service: await serviceCpu(), nginx: nginxCpu() };
    const result = await load(port);
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(
        `${name}: ${result.non2xx} non-2xx, ${result.errors} errors (${reqErrors.slice(0, 3).join('; ')}); nginx said:\n${log.slice(-2000)}`,
      );
    const requests = result.requests.total;
    result.cpu = {
      service: ((await serviceCpu()) - before.service) / requests,
      nginx: (nginxCpu() - before.nginx) / requests,
    };
    samples[name].push(result);
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const row = (name) => ({
  name,
  p50: median(samples[name].map((r) => r.latency.p50)),
  p99: median(samples[name].map((r) => r.latency.p99)),
  rps: median(samples[name].map((r) => r.requests.average)),
  cpu: {
    service: median(samples[name].map((r) => r.cpu.service)),
    nginx: median(samples[name].map((r) => r.cpu.nginx)),
  },
});
const rows = [row('plain'), row('guarded')];
console.log(
  `connections ${values.connections}, ${values.slices} slices of ${values['slice-seconds']} s each, medians:`,
);
const connections = Number(values.connections);
// Time per request from the throughput (connections / req/s): finer than autocannon's latency
// histogram, whose values are whole milliseconds.
const perRequest = (rps) => (1000 * connections) / rps;
for (const { name, p50, p99, rps, cpu } of rows) {
  const each = perRequest(rps).toFixed(3);
  console.log(
    `${name.padEnd(8)} ${Math.round(rps)} req/s  ${each} ms per request  p50 ${p50} ms  p99 ${p99} ms  ` +
      `CPU per request: nginx ${cpu.nginx.toFixed(1)} µs, service ${cpu.service.toFixed(1)} µs`,
  );
}
const added = (perRequest(rows[1].rps) - perRequest(rows[0].rps)).toFixed(3);
const cpuOf = ({ cpu }) => cpu.nginx + cpu.service;
console.log(`added by /forward-auth: ${added} ms per request at ${connections} connection(s)`);
console.log(
  `added CPU per request: ${(cpuOf(rows[1]) - cpuOf(rows[0])).toFixed(1)} µs ` +
    `(nginx ${(rows[1].cpu.nginx - rows[0].cpu.nginx).toFixed(1)} µs, service ${(rows[1].cpu.service - rows[0].cpu.service).toFixed(1)} µs; ` +
    `nginx alone ${cpuOf(rows[0]).toFixed(1)} µs)`,
);

nginx.kill('SIGQUIT');
await once(nginx, 'exit');
rmSync(prefix, { recursive: true, force: true });
service.disconnect();
await once(service, 'exit');
