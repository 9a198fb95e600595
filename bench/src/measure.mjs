// One measurement: a fresh server for a contender (pinned), a sanity check, a warm-up, the
// measured load, and the server's CPU time, RSS and retained heap around it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ask, spawnNode, stopChild, waitFor } from './children.mjs';

/**
 * Binds what every measurement shares.
 * @param {{here: string, material: object, serverEnv: object, loader: import('node:child_process').ChildProcess,
 *   serverCpu: string | null, options: object}} shared
 * @returns {(contender: object, workload: 'one' | 'pool', round: number) => Promise<object>}
 */
export function createMeasurer({ here, material, serverEnv, loader, serverCpu, options, providerHits = () => 0 }) {
  /** What the client sends to a contender in a workload: the header, and the list of values it rotates. */
  function requestPlan(contender, workload, phase) {
    if (contender.header === 'x-api-key') {
      // 10 000 keys: every request the next key of the list, so each client is asked in turn.
      const spec =
        contender.apiKeys === 'many'
          ? { file: material.files.apiKeys, field: 'keys' }
          : { value: material.keys.apiKey };
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
        : material.keys.apiKey;
    const [header, good, bad] =
      contender.header === 'x-api-key'
        ? ['x-api-key', apiKey, `${apiKey}x`]
        : ['authorization', `Bearer ${tokens.one}`, `Bearer ${tamper(tokens.one)}`];
    const ok = await post(port, header, good);
    if (ok !== 200) throw new Error(`${contender.id}: a valid credential got ${ok}, not 200`);
    if (contender.id === 'bare') return;
    const refused = await post(port, header, bad);
    if (refused !== 401) throw new Error(`${contender.id}: a tampered credential got ${refused}, not 401`);
  }

  async function measure(contender, workload, round) {
    const server = spawnNode(join(here, 'server.mjs'), {
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
      const warm = await ask(
        loader,
        'run',
        { ...common, duration: options.warmup, ...requestPlan(contender, workload, 'warmup') },
        { answer: 'result', timeoutMs },
      );
      if (warm.error) throw new Error(warm.error);
      const before = await ask(server, 'usage');
      const providerBefore = providerHits();
      const run = await ask(
        loader,
        'run',
        { ...common, duration: options.duration, ...requestPlan(contender, workload, 'run') },
        { answer: 'result', timeoutMs },
      );
      if (run.error) throw new Error(run.error);
      const after = await ask(server, 'usage', { gc: true });
      const providerRequests = providerHits() - providerBefore;
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
        // share of the time the server's main thread was runnable but did not get its core
        waiting:
          after.waited === null || before.waited === null ? NaN : (after.waited - before.waited) / 1000 / wallMicros,
        clientBusy: r.clientBusy,
        responses: r.responses,
        ok: r.ok,
        status: r.status,
        errors: r.errors,
        usesPerToken: workload === 'pool' && contender.alg !== null ? r.responses / r.distinct : null,
        // Introspection requests the provider answered during the measured run (OAuth2 contenders).
        providerRequests,
      };
    } finally {
      await stopChild(server);
    }
  }

  return measure;
}
