// The HTTP benchmark: every contender's server on one core, autocannon on the other, contenders
// interleaved within each round, rounds repeated; then the verification micro-benchmark. Writes
// bench/results/latest.md (and .json), copies the table into bench/README.md, prints it.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { cpus, loadavg, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SKIPPED_LINE, authlayerJwtAvailable } from './authlayer-jwt.mjs';
import { checkPinning, spawnNode, waitFor, stopChild } from './children.mjs';
import { CONTENDERS, ENV, bareOf, isBare, materialEnv } from './contenders.mjs';
import { INTROSPECTION_CLIENT, startIntrospectionServer } from './introspection-server.mjs';
import { startJwksServer } from './jwks-server.mjs';
import { loadMaterial, publicJwks } from './material.mjs';
import { createMeasurer } from './measure.mjs';
import { readOptions } from './options.mjs';
import { QUIET_LOAD, summarize, renderMarkdown, replaceReadmeSection } from './report.mjs';
import { schedule } from './schedule.mjs';
import { startRedis } from '@authlayer/testkit';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const log = (line) => console.log(`[bench] ${line}`);

const options = readOptions();
const started = Date.now();
const load0 = loadavg();
// Timing on a busy 2-core machine measures the other processes: say so loudly, in the results too.
if (load0[0] > QUIET_LOAD)
  log(
    `WARNING: load average ${load0[0].toFixed(2)} > ${QUIET_LOAD}: the machine is busy and the figures will be noise`,
  );

const pin = options.pin ? checkPinning([options.serverCpu, options.loadCpu]) : { ok: false, reason: '--no-pin' };
if (!pin.ok) log(`running WITHOUT core pinning: ${pin.reason}. Numbers will be noisier.`);
const serverCpu = pin.ok ? options.serverCpu : null;
const loadCpu = pin.ok ? options.loadCpu : null;

const jwtAvailable = await authlayerJwtAvailable();
if (!jwtAvailable) console.log(SKIPPED_LINE);

// The revocation contenders need a redis-server (Debian's, as the tests use): without one on the
// PATH they are skipped with a line, as the jwt ones are without the package.
const redisAvailable = spawnSync('redis-server', ['--version']).status === 0;
if (!redisAvailable) console.log('authlayer revocation contenders skipped: no redis-server on the PATH');

const filter = (c) =>
  !isBare(c) &&
  (jwtAvailable || !c.needsAuthlayerJwt) &&
  (redisAvailable || !c.needsRedis) &&
  (options.only === null ||
    options.only.some((part) => (part.startsWith('=') ? c.id === part.slice(1) : c.id.includes(part))));
// Bare Express always runs; the bare of every other framework whenever the run has its contenders:
// each contender is paired with the bare of its own framework (measure.mjs).
const frameworks = new Set(['express', ...CONTENDERS.filter(filter).map((c) => c.framework)]);
const contenders = CONTENDERS.filter((c) => (isBare(c) && frameworks.has(c.framework)) || filter(c));
const workloads = options.workloads.filter((w) => w === 'one' || w === 'pool');

const material = await loadMaterial(options.pool, log);
const jwks = await startJwksServer(publicJwks(material.keys));
// In this (unpinned) process: the provider's work competes with the load generator, as a real
// provider on the same machine would; the OAuth2 figures are read with that in mind.
const introspection = await startIntrospectionServer(material.tokens.OPAQUE);
const redis = contenders.some((c) => c.needsRedis) ? await startRedis() : null;
const serverEnv = {
  ...process.env,
  ...materialEnv(material),
  [ENV.jwksUrl]: jwks.url,
  [ENV.introspectionUrl]: introspection.url,
  [ENV.introspectionSecret]: INTROSPECTION_CLIENT.secret,
  ...(redis === null ? {} : { [ENV.redisUrl]: redis.url }),
};

const loader = spawnNode(join(HERE, 'load.mjs'), { cpu: loadCpu, env: process.env });
await waitFor(loader, 'ready');

const measure = createMeasurer({
  here: HERE,
  material,
  serverEnv,
  loader,
  serverCpu,
  options,
  bares: Object.fromEntries([...frameworks].map((framework) => [framework, bareOf(framework)])),
  providerHits: introspection.hits,
});

const plan = schedule(contenders, workloads, options.rounds);
// two servers per step, each warmed up and loaded for `duration`, plus their start-up, sanity
// checks and one IPC round trip per slice (16 s per step at the defaults, measured 2026-11-22)
const perStep = 2 * (options.warmup + options.duration) + 8;
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
    const bad =
      sample.ok < sample.responses
        ? `  !! ${sample.responses - sample.ok} non-2xx ${JSON.stringify(sample.status)}`
        : '';
    log(
      `${tag.padEnd(48)} ${sample.rps.toFixed(0).padStart(6)} req/s  p50 ${sample.p50.toFixed(2)} ms  ${sample.cpuPerRequest.toFixed(1)} µs CPU/req ` +
        `(bare ${sample.bare.cpuPerRequest.toFixed(1)}: ×${(sample.bare.cpuPerRequest / sample.cpuPerRequest).toFixed(2)})  ` +
        `main ${(sample.mainShare * 100).toFixed(0)}%  ${(sample.rss / 2 ** 20).toFixed(1)} MiB  busy ${(sample.busy * 100).toFixed(0)}% waiting ${(sample.waiting * 100).toFixed(0)}% (client busy ${(sample.clientBusy * 100).toFixed(0)}%)${bad}`,
    );
  } catch (error) {
    failures.push({
      id: step.contender.id,
      workload: step.workload,
      round: step.round,
      message: String(error?.message ?? error),
    });
    log(`${tag}  FAILED: ${error?.message ?? error}`);
  }
}

await stopChild(loader);
const jwksHits = jwks.hits();
await jwks.close();
await introspection.close();
await redis?.stop();

let micro = null;
if (options.verify) {
  log('verification micro-benchmark');
  const args = ['--json', '--verify-ms', String(options.verifyMs), '--pool', String(options.pool)];
  const out = execFileSync(
    pin.ok ? 'taskset' : process.execPath,
    pin.ok
      ? ['-c', options.serverCpu, process.execPath, join(HERE, 'verify.mjs'), ...args]
      : [join(HERE, 'verify.mjs'), ...args],
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
  pinned: pin.ok
    ? `server on CPU ${options.serverCpu}, autocannon on CPU ${options.loadCpu} (taskset)`
    : `not pinned (${pin.reason})`,
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
const markdown = renderMarkdown(summary, meta, micro) + renderProviderRequests(samples);
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

/** The OAuth2 contenders' load on the provider: introspection requests per 1000 answered requests. */
function renderProviderRequests(all) {
  const rows = all.filter((sample) => sample.id.startsWith('authlayer-oauth2'));
  if (rows.length === 0) return '';
  const lines = rows.map(
    (s) =>
      `| ${s.id} | ${s.workload} | ${s.round} | ${s.responses} | ${s.providerRequests} | ${((1000 * s.providerRequests) / s.responses).toFixed(1)} |`,
  );
  return [
    '',
    '### OAuth2: requests to the introspection endpoint',
    '',
    '| contender | workload | round | requests answered | introspection requests | per 1000 requests |',
    '|---|---|---|---|---|---|',
    ...lines,
    '',
  ].join('\n');
}
