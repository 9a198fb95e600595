// One measurement: fresh servers for a contender and for the bare server of its framework (bare
// Express 5 or bare Fastify 5, pinned to the same core), a sanity check, a warm-up, the measured load in alternating slices, and each server's CPU time,
// RSS and retained heap around its own slices.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ask, spawnNode, stopChild, waitFor } from './children.mjs';
import { isBare } from './contenders.mjs';

/**
 * Binds what every measurement shares.
 * @param {{here: string, material: object, serverEnv: object, loader: import('node:child_process').ChildProcess,
 *   serverCpu: string | null, options: object, bares: Record<string, object>, providerHits?: () => number}} shared
 *   `bares`: the bare contender of each framework in the run, by framework (`express`, `fastify`)
 * @returns {(contender: object, workload: 'one' | 'pool', round: number) => Promise<object>}
 */
export function createMeasurer({
  here,
  material,
  serverEnv,
  loader,
  serverCpu,
  options,
  bares,
  providerHits = () => 0,
}) {
  /** What the client sends to a contender in a workload: the header, and the list of values it rotates. */
  function requestPlan(contender, workload, phase) {
    if (contender.header === 'x-api-key') {
      // 10 000 keys: every request the next key of the list, so each client is asked in turn.
      const spec =
        contender.apiKeys === 'many'
          ? { file: material.files.apiKeys, field: 'keys' }
          : { value: contender.apiKeys === 'checksummed' ? material.keys.checksummedApiKey : material.keys.apiKey };
      return { header: 'x-api-key', bearer: false, spec };
    }
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
    const apiKey =
      contender.apiKeys === 'many'
        ? JSON.parse(await readFile(material.files.apiKeys, 'utf8')).keys.at(-1)
        : contender.apiKeys === 'checksummed'
          ? material.keys.checksummedApiKey
          : material.keys.apiKey;
    const [header, good, bad] =
      contender.header === 'x-api-key'
        ? ['x-api-key', apiKey, `${apiKey}x`]
        : ['authorization', `Bearer ${tokens.one}`, `Bearer ${tamper(tokens.one)}`];
    const ok = await post(port, header, good);
    if (ok !== 200) throw new Error(`${contender.id}: a valid credential got ${ok}, not 200`);
    if (isBare(contender)) return;
    const refused = await post(port, header, bad);
    if (refused !== 401) throw new Error(`${contender.id}: a tampered credential got ${refused}, not 401`);
  }

  /** A fresh server for a contender, pinned, answering a valid credential (and refusing a tampered one). */
  async function startServer(contender, workload, round) {
    // --profile DIR: a V8 CPU profile of every server, named after its contender and step.
    const profile =
      options.profile === null
        ? []
        : [
            '--cpu-prof',
            `--cpu-prof-dir=${options.profile}`,
            `--cpu-prof-name=${contender.id}.${workload}.r${round}.cpuprofile`,
          ];
    const server = spawnNode(join(here, 'server.mjs'), {
      cpu: serverCpu,
      nodeArgs: ['--expose-gc', ...profile, ...options.serverNodeArgs],
      env: { ...serverEnv, BENCH_CONTENDER: contender.id },
    });
    try {
      const { port } = await waitFor(server, 'ready');
      await sanityCheck(contender, port);
      return { contender, server, url: `http://127.0.0.1:${port}` };
    } catch (error) {
      await stopChild(server);
      throw error;
    }
  }

  /** One run of the loader against one server; its CPU and requests counted around it. */
  async function slice(side, workload, phase, duration, totals) {
    const timeoutMs = (duration + 30) * 1000;
    const plan = requestPlan(side.contender, workload, phase);
    const before = await ask(side.server, 'usage');
    const providerBefore = providerHits();
    const reply = await ask(
      loader,
      'run',
      { url: side.url, tag: side.contender.id, connections: options.connections, duration, ...plan },
      { answer: 'result', timeoutMs },
    );
    if (reply.error) throw new Error(reply.error);
    const after = await ask(side.server, 'usage');
    if (totals === null) return;
    const r = reply.result;
    totals.cpu += after.cpu.user + after.cpu.system - (before.cpu.user + before.cpu.system);
    totals.main += after.main === null || before.main === null ? NaN : after.main - before.main;
    totals.wall += (after.wall - before.wall) / 1000;
    totals.waited += after.waited === null || before.waited === null ? NaN : (after.waited - before.waited) / 1000;
    totals.handled += after.handled - before.handled;
    totals.seconds += r.seconds;
    totals.ok += r.ok;
    totals.latencies.push(r.latencies);
    totals.clientBusy.push(r.clientBusy);
    totals.errors += r.errors;
    totals.distinct = r.distinct;
    totals.providerRequests += providerHits() - providerBefore;
    for (const [code, count] of Object.entries(r.status)) totals.status[code] = (totals.status[code] ?? 0) + count;
  }

  const emptyTotals = () => ({
    cpu: 0,
    main: 0,
    wall: 0,
    waited: 0,
    handled: 0,
    seconds: 0,
    ok: 0,
    latencies: [],
    clientBusy: [],
    errors: 0,
    distinct: 0,
    providerRequests: 0,
    status: {},
  });

  /** The sample of one side of a measurement, from its slices' totals and its server's memory. */
  function sampleOf(side, totals, memory, workload, round) {
    const latencies = totals.latencies.flat().sort((a, b) => a - b);
    const pct = (p) =>
      latencies.length === 0 ? NaN : latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
    return {
      id: side.contender.id,
      workload,
      round,
      rps: totals.ok / totals.seconds,
      p50: pct(0.5),
      p99: pct(0.99),
      cpuPerRequest: totals.cpu / totals.handled,
      // the main thread's share of that CPU; the rest ran on helper threads (GC, libuv's pool)
      mainShare: totals.main / totals.cpu,
      rss: memory.rss,
      settledRss: memory.settledRss,
      retained: memory.retained,
      busy: totals.cpu / totals.wall,
      // share of the time the server's main thread was runnable but did not get its core
      waiting: totals.waited / totals.wall,
      clientBusy: totals.clientBusy.reduce((a, b) => a + b, 0) / totals.clientBusy.length,
      responses: latencies.length,
      ok: totals.ok,
      status: totals.status,
      errors: totals.errors,
      usesPerToken: workload === 'pool' && side.contender.alg !== null ? latencies.length / totals.distinct : null,
      // Introspection requests the provider answered during the measured slices (OAuth2 contenders).
      providerRequests: totals.providerRequests,
    };
  }

  /**
   * One paired measurement: the contender's server and a bare server of its framework (bare
   * Express for Express contenders, bare Fastify for Fastify ones), both fresh and on the same core, warmed up, then loaded in turn for short slices (bare, contender, contender,
   * bare, ...) until each had `duration` seconds. This machine's speed drifts within seconds, so
   * a ratio is only trusted between slices a second apart, never between runs a minute apart.
   * Resolves with the contender's sample, holding its bare twin's as `bare`.
   */
  async function measure(contender, workload, round) {
    const bare = bares[contender.framework];
    if (bare === undefined) throw new Error(`${contender.id}: no bare ${contender.framework} in this run`);
    const sides = [];
    try {
      sides.push(await startServer(bare, workload, round));
      sides.push(await startServer(contender, workload, round));
      for (const side of sides) await slice(side, workload, 'warmup', options.warmup, null);
      const totals = sides.map(() => emptyTotals());
      const count = Math.max(1, Math.round(options.duration / options.slice));
      for (let i = 0; i < count; i += 1) {
        // ABBA: a steady drift weighs on both sides alike.
        const order = i % 2 === 0 ? [0, 1] : [1, 0];
        for (const s of order) await slice(sides[s], workload, 'run', options.duration / count, totals[s]);
      }
      const memory = [];
      for (const side of sides) memory.push(await ask(side.server, 'usage', { gc: true }));
      const [bareSample, sample] = sides.map((side, s) => sampleOf(side, totals[s], memory[s], workload, round));
      return { ...sample, bare: bareSample };
    } finally {
      for (const side of sides) await stopChild(side.server);
    }
  }

  return measure;
}
