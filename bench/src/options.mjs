// Command-line flags and BENCH_* environment variables of the benchmark. Flags win over env.
import { parseArgs } from 'node:util';

const DEFAULTS = {
  // 50 connections and 2 000 distinct tokens: the independent measurement of 2026-11-22 (see the
  // README's "Method"). 10 connections left the server between batches (fewer requests per
  // event-loop turn), which raised bare Express's own CPU per request and flattered every ratio.
  full: { rounds: 3, duration: 3, warmup: 1, slice: 0.5, connections: 50, pool: 2_000, verifyMs: 500 },
  quick: { rounds: 1, duration: 1, warmup: 0.75, slice: 0.5, connections: 50, pool: 2_000, verifyMs: 100 },
};

/**
 * Reads the options of `run.mjs` and `verify.mjs`.
 * @returns {{quick: boolean, rounds: number, duration: number, warmup: number, slice: number, connections: number,
 *   pool: number, verifyMs: number, only: string[] | null, workloads: string[], verify: boolean,
 *   serverCpu: string, loadCpu: string, pin: boolean, out: string | null, readme: boolean, json: boolean, profile: string | null, serverNodeArgs: string[]}}
 */
export function readOptions(argv = process.argv.slice(2), env = process.env) {
  const { values } = parseArgs({
    // pnpm 10 hands `pnpm bench -- --quick` on with its `--`: skip it, as the help promises.
    args: argv[0] === '--' ? argv.slice(1) : argv,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      slice: { type: 'string' },
      connections: { type: 'string' },
      pool: { type: 'string' },
      'verify-ms': { type: 'string' },
      only: { type: 'string' },
      workloads: { type: 'string' },
      'no-verify': { type: 'boolean' },
      'server-cpu': { type: 'string' },
      'load-cpu': { type: 'string' },
      'no-pin': { type: 'boolean' },
      out: { type: 'string' },
      profile: { type: 'string' },
      'no-readme': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const quick = values.quick ?? isTrue(env.BENCH_QUICK);
  const base = quick ? DEFAULTS.quick : DEFAULTS.full;
  const num = (flag, name, fallback) => {
    const raw = values[flag] ?? env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${flag} / ${name} must be a positive number, got "${raw}"`);
    return n;
  };
  const list = (raw) =>
    raw === undefined || raw === ''
      ? null
      : raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
  return {
    quick,
    rounds: Math.round(num('rounds', 'BENCH_ROUNDS', base.rounds)),
    duration: num('duration', 'BENCH_DURATION', base.duration),
    warmup: num('warmup', 'BENCH_WARMUP', base.warmup),
    slice: num('slice', 'BENCH_SLICE', base.slice),
    connections: Math.round(num('connections', 'BENCH_CONNECTIONS', base.connections)),
    pool: Math.round(num('pool', 'BENCH_POOL', base.pool)),
    verifyMs: num('verify-ms', 'BENCH_VERIFY_MS', base.verifyMs),
    only: list(values.only ?? env.BENCH_ONLY),
    workloads: list(values.workloads ?? env.BENCH_WORKLOADS) ?? ['one', 'pool'],
    verify: !(values['no-verify'] ?? isTrue(env.BENCH_NO_VERIFY)),
    serverCpu: values['server-cpu'] ?? env.BENCH_SERVER_CPU ?? '0',
    loadCpu: values['load-cpu'] ?? env.BENCH_LOAD_CPU ?? '1',
    pin: !(values['no-pin'] ?? isTrue(env.BENCH_NO_PIN)),
    out: values.out ?? env.BENCH_OUT ?? null,
    readme: !(values['no-readme'] ?? isTrue(env.BENCH_NO_README)),
    json: values.json ?? false,
    profile: values.profile ?? (env.BENCH_PROFILE || null),
    // extra Node.js flags for every server (diagnosis only: --trace-gc, --max-semi-space-size=…)
    serverNodeArgs: (env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
  };
}

const isTrue = (v) => v !== undefined && v !== '' && v !== '0' && v !== 'false';

const HELP = `pnpm bench [-- flags]     (flags also as BENCH_* env vars)
  --quick              1 round x 1 s, for development (BENCH_QUICK=1)
  --rounds N           rounds, contenders interleaved in each (default 3)
  --duration S         measured seconds per contender per workload (default 3)
  --warmup S           unmeasured seconds before each measurement (default 1)
  --slice S            length of one slice: contender and bare are loaded in turn (default 0.5)
  --connections N      autocannon connections (default 50)
  --pool N             distinct tokens of the pool workload (default 2000)
  --only a,b           only contenders whose id contains one of these (=id: exactly that id; bare
                       Express always runs, bare Fastify when Fastify contenders do)
  --workloads one,pool which token workloads (default both)
  --no-verify          skip the verification micro-benchmark
  --verify-ms MS       time per micro-benchmark sample (default 500)
  --server-cpu C       core of the servers (default 0), --load-cpu C: of autocannon (default 1)
  --profile DIR        write a V8 CPU profile of every server into DIR (slows the servers down)
  --no-pin             do not use taskset
  --out FILE           markdown file (default bench/results/latest.md)
  --no-readme          do not copy the table into bench/README.md`;
