// The HTTP benchmark: every contender's server on one core, autocannon on the other, contenders
// interleaved within each round, rounds repeated; then the verification micro-benchmark. Writes
// bench/results/latest.md (and .json), copies the table into bench/README.md, prints it.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { cpus, loadavg, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SKIPPED_LINE, authlayerJwtAvailable } from './authlayer-jwt.mjs';
import { checkPinning, spawnNode, waitFor, ask, stopChild } from './children.mjs';
import { CONTENDERS, ENV } from './contenders.mjs';
import { startJwksServer } from './jwks-server.mjs';
import { loadMaterial, publicJwks } from './material.mjs';
import { readOptions } from './options.mjs';
import { summarize, renderMarkdown, replaceReadmeSection } from './report.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const log = (line) => console.log(`[bench] ${line}`);

const options = readOptions();
const started = Date.now();
const load0 = loadavg();

const pin = options.pin ? checkPinning([options.serverCpu, options.loadCpu]) : { ok: false, reason: '--no-pin' };
if (!pin.ok) log(`running WITHOUT core pinning: ${pin.reason}. Numbers will be noisier.`);
const serverCpu = pin.ok ? options.serverCpu : null;
const loadCpu = pin.ok ? options.loadCpu : null;

const jwtAvailable = await authlayerJwtAvailable();
if (!jwtAvailable) console.log(SKIPPED_LINE);

const filter = (c) =>
  (jwtAvailable || !c.needsAuthlayerJwt) &&
  (c.id === 'bare' || options.only === null || options.only.some((part) => c.id.includes(part)));
const contenders = CONTENDERS.filter(filter);
const workloads = options.workloads.filter((w) => w === 'one' || w === 'pool');

const material = await loadMaterial(options.pool, log);
const jwks = await startJwksServer(publicJwks(material.keys));
const serverEnv = {
  ...process.env,
  [ENV.RS256]: material.keys.RS256.publicPem,
  [ENV.ES256]: material.keys.ES256.publicPem,
  [ENV.HS256]: material.keys.HS256.secret,
  [ENV.apiKey]: material.keys.apiKey,
  [ENV.jwksUrl]: jwks.url,
};

const loader = spawnNode(join(HERE, 'load.mjs'), { cpu: loadCpu, env: process.env });
await waitFor(loader, 'ready');

/** What the client sends to a contender in a workload: the header, and the list of values it rotates. */
function requestPlan(contender, workload, phase) {
  if (contender.header === 'x-api-key') return { header: 'x-api-key', bearer: false, spec: { value: material.keys.apiKey } };
  const file = material.files[contender.alg];
  const field = workload === 'one' ? 'one' : phase === 'warmup' ? 'warm' : 'pool';
  return { header: 'authorization', bearer: true, spec: { file, field } };
}

function tamper(token) {
  const end = token.endsWith('AAAA') ? 'BBBB' : 'AAAA';
  return token.slice(0, -4) + end;
}

async function post(port, header, value) {
  const response = await fetch(`http://127.0.0.1:${port}/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [header]: value },
    body: JSON.stringify({ query: 'hello' }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Proves the server authenticates: a valid credential gets 200, a tampered one 401. */
async function sanityCheck(contender, port) {
  const tokens = contender.alg === null ? null : material.tokens[contender.alg];
  const [header, good, bad] =
    contender.header === 'x-api-key'
      ? ['x-api-key', material.keys.apiKey, `${material.keys.apiKey}x`]
      : ['authorization', `Bearer ${tokens.one}`, `Bearer ${tamper(tokens.one)}`];
  const ok = await post(port, header, good);
  if (ok !== 200) throw new Error(`${contender.id}: a valid credential got ${ok}, not 200`);
  if (contender.id === 'bare') return;
  const refused = await post(port, header, bad);
  if (refused !== 401) throw new Error(`${contender.id}: a tampered credential got ${refused}, not 401`);
}

async function measure(contender, workload, round) {
  const server = spawnNode(join(HERE, 'server.mjs'), {
    cpu: serverCpu,
    nodeArgs: ['--expose-gc'],
    env: { ...serverEnv, BENCH_CONTENDER: contender.id },
  });
  try {
    const { port } = await waitFor(server, 'ready');
    await sanityCheck(contender, port);
    const url = `http://127.0.0.1:${port}`;
    const common = { url, connections: options.connections };
    const timeoutMs = (Math.max(options.warmup, options.duration) + 30) * 1000;
    const warm = await ask(loader, 'run', { ...common, duration: options.warmup, ...requestPlan(contender, workload, 'warmup') }, { answer: 'result', timeoutMs });
    if (warm.error) throw new Error(warm.error);
    const before = await ask(server, 'usage');
    const run = await ask(loader, 'run', { ...common, duration: options.duration, ...requestPlan(contender, workload, 'run') }, { answer: 'result', timeoutMs });
    if (run.error) throw new Error(run.error);
    const after = await ask(server, 'usage', { gc: true });
    const r = run.result;
    const cpuMicros = after.cpu.user + after.cpu.system - (before.cpu.user + before.cpu.system);
    const handled = after.handled - before.handled;
    const wallMicros = (after.wall - before.wall) / 1000;
    return {
      id: contender.id,
      workload,
      round,
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      cpuPerRequest: cpuMicros / handled,
      rss: after.rss,
      retained: after.retained,
      busy: cpuMicros / wallMicros,
      clientBusy: r.clientBusy,
      responses: r.responses,
      ok: r.ok,
      status: r.status,
      errors: r.errors,
      usesPerToken: workload === 'pool' && contender.alg !== null ? r.responses / r.distinct : null,
    };
  } finally {
    await stopChild(server);
  }
}

/**
 * Rounds; in each, per workload, the contenders rotated by one place per round and split into
 * three groups, with bare before, between and after them. Each contender's ratio is taken
 * against the bare measurements right before and after its group, so slow drift of a shared
 * machine cancels out.
 */
function schedule() {
  const plan = [];
  const bare = contenders.find((c) => c.id === 'bare');
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const workload of workloads) {
      const others = contenders.filter((c) => c.id !== 'bare' && c.workloads.includes(workload));
      const shift = (round - 1) % Math.max(1, others.length);
      const rotated = [...others.slice(shift), ...others.slice(0, shift)];
      const size = Math.max(1, Math.ceil(rotated.length / 3));
      plan.push({ contender: bare, workload, round });
      for (let i = 0; i < rotated.length; i += size) {
        plan.push(...rotated.slice(i, i + size).map((contender) => ({ contender, workload, round })));
        plan.push({ contender: bare, workload, round });
      }
    }
  }
  return plan.map((step, seq) => ({ ...step, seq }));
}

const plan = schedule();
const perStep = options.warmup + options.duration + 0.7;
log(
  `${contenders.length} contenders, workloads ${workloads.join(' + ')}, ${options.rounds} round(s) x ${options.duration} s ` +
    `(+${options.warmup} s warm-up), ${options.connections} connections; ${plan.length} measurements, about ` +
    `${Math.ceil((plan.length * perStep) / 60)} min; server on ${serverCpu ?? 'any'} core, autocannon on ${loadCpu ?? 'any'}`,
);

const samples = [];
const failures = [];
for (const [index, step] of plan.entries()) {
  const tag = `${String(index + 1).padStart(3)}/${plan.length} r${step.round} ${step.workload.padEnd(4)} ${step.contender.id}`;
  try {
    const sample = { ...(await measure(step.contender, step.workload, step.round)), seq: step.seq };
    samples.push(sample);
    const bad = sample.ok < sample.responses ? `  !! ${sample.responses - sample.ok} non-2xx ${JSON.stringify(sample.status)}` : '';
    log(`${tag.padEnd(48)} ${sample.rps.toFixed(0).padStart(6)} req/s  p50 ${sample.p50.toFixed(2)} ms  ${sample.cpuPerRequest.toFixed(1)} µs CPU/req  ${(sample.rss / 2 ** 20).toFixed(1)} MiB  busy ${(sample.busy * 100).toFixed(0)}% (client ${(sample.clientBusy * 100).toFixed(0)}%)${bad}`);
  } catch (error) {
    failures.push({ id: step.contender.id, workload: step.workload, round: step.round, message: String(error?.message ?? error) });
    log(`${tag}  FAILED: ${error?.message ?? error}`);
  }
}

await stopChild(loader);
const jwksHits = jwks.hits();
await jwks.close();

let micro = null;
if (options.verify) {
  log('verification micro-benchmark');
  const args = ['--json', '--verify-ms', String(options.verifyMs), '--pool', String(options.pool)];
  const out = execFileSync(
    pin.ok ? 'taskset' : process.execPath,
    pin.ok ? ['-c', options.serverCpu, process.execPath, join(HERE, 'verify.mjs'), ...args] : [join(HERE, 'verify.mjs'), ...args],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 2 ** 20 },
  );
  micro = JSON.parse(out.trim().split('\n').at(-1));
}

const summary = summarize(samples, contenders, workloads);
const meta = {
  date: new Date(started).toISOString(),
  minutes: (Date.now() - started) / 60_000,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  node: process.version,
  kernel: release(),
  pinned: pin.ok ? `server on CPU ${options.serverCpu}, autocannon on CPU ${options.loadCpu} (taskset)` : `not pinned (${pin.reason})`,
  loadavg: { before: load0, after: loadavg() },
  options,
  jwtAvailable,
  jwtSource: !jwtAvailable
    ? null
    : process.env.AUTHLAYER_JWT_MODULE
      ? `loaded from AUTHLAYER_JWT_MODULE (${process.env.AUTHLAYER_JWT_LABEL ?? process.env.AUTHLAYER_JWT_MODULE}), not the workspace package`
      : 'the installed workspace package',
  jwksHits,
  failures,
};
const markdown = renderMarkdown(summary, meta, micro);
const outFile = options.out ?? join(ROOT, 'results', 'latest.md');
await mkdir(dirname(outFile), { recursive: true });
await writeFile(outFile, markdown);
await writeFile(outFile.replace(/\.md$/, '') + '.json', JSON.stringify({ meta, samples, summary, micro }, null, 2));
if (options.readme) {
  const readme = join(ROOT, 'README.md');
  try {
    await writeFile(readme, replaceReadmeSection(await readFile(readme, 'utf8'), markdown));
  } catch (error) {
    if (error?.code !== 'ENOENT') throw error;
  }
}
console.log(`\n${markdown}`);
log(`wrote ${outFile}${failures.length > 0 ? `; ${failures.length} measurement(s) FAILED` : ''}`);
process.exitCode = failures.length > 0 ? 1 : 0;
