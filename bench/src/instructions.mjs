// Instructions per request, counted by valgrind's callgrind: a measure that does not move with this
// VM's speed (its CPU time per request moves by up to 1.7x within seconds; an instruction count
// repeats within about 0.5 %). Each contender's own server (server.mjs, the app the HTTP bench
// loads) runs under callgrind with `--single-threaded` (the compiler and the garbage collector on
// the main thread, so their work is counted too). WARM requests run uninstrumented, 200 more
// instrumented, then a full collection (each window starts from the same clean heap), the counters
// zeroed, and COUNT requests counted, with the young-generation collections they cause. The load
// is 10 keep-alive connections from node:http, with the HTTP bench's headers and a JSON body of
// the same shape (a longer `query`).
//
//   pnpm --filter @authlayer/bench instructions <contender id> ...   (valgrind on the PATH)
//   WORKLOADS=one,pool WARM=5000 COUNT=3000 (the defaults); KEEP=dir keeps each callgrind file
//
// Not the HTTP bench's measure: an instruction is not a nanosecond (a signature's big-number
// arithmetic retires more instructions per cycle than a property lookup that misses a cache), so
// compare contenders doing the same kind of work, as the goals do (a middleware with its peer).
import { spawn, execFileSync } from 'node:child_process';
import { Agent } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { bareOf, contenderById } from './contenders.mjs';
import { collect, credentials, listening, send, setUp } from './single-server.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const WARM = Number(process.env.WARM ?? 5000);
const COUNT = Number(process.env.COUNT ?? 3000);
const WORKLOADS = (process.env.WORKLOADS ?? 'one,pool').split(',');
const CONNECTIONS = 10;

const ids = process.argv.slice(2);
const { material, redis, env } = await setUp(ids);

console.log(`| contender | workload | instructions per request | ×bare of its framework |`);
console.log(`|---|---|--:|--:|`);
const counted = new Map();
try {
  for (const id of ids) {
    const contender = contenderById(id);
    for (const workload of contender.workloads.filter((w) => WORKLOADS.includes(w))) {
      const perRequest = await count(contender, workload);
      counted.set(`${id}/${workload}`, perRequest);
      const bare = counted.get(`${bareOf(contender.framework).id}/${workload}`);
      const ratio = bare === undefined ? '' : (bare / perRequest).toFixed(3);
      console.log(`| ${id} | ${workload} | ${Math.round(perRequest)} | ${ratio} |`);
    }
  }
} finally {
  await redis?.stop();
}

async function count(contender, workload) {
  const dir = mkdtempSync(join(tmpdir(), 'authlayer-callgrind-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${dir}/out.%p`,
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      process.execPath,
      '--single-threaded',
      '--expose-gc',
      join(HERE, 'server.mjs'),
    ],
    { env: { ...env, BENCH_CONTENDER: contender.id }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  try {
    const port = await listening(child, contender.id);
    const values = credentials(material, contender, workload);
    const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const control = (...args) => execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' });
    const load = (n) => send({ port, agent, contender, values, n, connections: CONNECTIONS });
    await load(WARM);
    control('--instr=on');
    await load(200);
    await collect(child);
    control('--zero');
    await load(COUNT);
    control('--dump');
    agent.destroy();
    // The dump is written when the server next runs.
    const dumped = () => readdirSync(dir).find((f) => /\.\d+\.\d+$/.test(f));
    while (dumped() === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const text = readFileSync(join(dir, dumped()), 'utf8');
    // KEEP=dir: the callgrind file too, for callgrind_annotate.
    if (process.env.KEEP)
      execFileSync('cp', [join(dir, dumped()), join(process.env.KEEP, `${contender.id}.${workload}.callgrind`)]);
    const total = /^summary: (\d+)/m.exec(text) ?? /^totals: (\d+)/m.exec(text);
    return Number(total[1]) / COUNT;
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
