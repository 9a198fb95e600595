// What the garbage collector does per request, from V8's own trace (`--trace-gc-nvp`): each
// contender's server (server.mjs, the app the HTTP bench loads) gets WARM requests, a full
// collection, then COUNT requests whose collections are summed. The HTTP bench counts the
// collector's CPU with everything else; this says how much of it there is and why: how many bytes
// of every request outlive a young-generation collection (survived) and are moved to the old
// generation (promoted), which is what a scavenge pays for.
//
//   pnpm --filter @authlayer/bench gc <contender id> ...
//   WORKLOADS=one,pool WARM=5000 COUNT=10000 CONNECTIONS=50 (the defaults); SERVER_NODE_ARGS adds
//   Node.js or V8 flags to every server (to compare collector settings)
//
// The pauses are wall time on the main thread and move with this VM's speed (two runs of one
// program differ by up to 15 %); the byte counts repeat within a few per cent.
import { spawn } from 'node:child_process';
import { Agent } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contenderById } from './contenders.mjs';
import { collect, credentials, listening, send, setUp } from './single-server.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const WARM = Number(process.env.WARM ?? 5000);
const COUNT = Number(process.env.COUNT ?? 10_000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const WORKLOADS = (process.env.WORKLOADS ?? 'one,pool').split(',');
const NODE_ARGS = (process.env.SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

const ids = process.argv.slice(2);
const { material, redis, env } = await setUp(ids);

console.log(
  '| contender | workload | scavenges | scavenge pause ms per 1 000 requests | mark-compacts | ' +
    'allocated KiB/request | survived KiB/request | promoted KiB/request |',
);
console.log('|---|---|--:|--:|--:|--:|--:|--:|');
try {
  for (const id of ids) {
    const contender = contenderById(id);
    for (const workload of contender.workloads.filter((w) => WORKLOADS.includes(w))) {
      const s = summarise(await trace(contender, workload));
      const kib = (bytes) => (bytes / 1024 / COUNT).toFixed(2);
      console.log(
        `| ${id} | ${workload} | ${s.scavenges} | ${((s.scavengePause * 1000) / COUNT).toFixed(1)} | ` +
          `${s.markCompacts} | ${kib(s.allocated)} | ${kib(s.survived)} | ${kib(s.promoted)} |`,
      );
    }
  }
} finally {
  await redis?.stop();
}

/** The trace lines of the collections during COUNT requests. */
async function trace(contender, workload) {
  const child = spawn(process.execPath, ['--trace-gc-nvp', '--expose-gc', ...NODE_ARGS, join(HERE, 'server.mjs')], {
    env: { ...env, BENCH_CONTENDER: contender.id },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let out = '';
  let seen = () => {};
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    out += chunk;
    seen();
  });
  // A full collection whose trace line has arrived (the pipe may deliver it after the answer).
  const fullCollection = async () => {
    const before = out.split(' gc=mc ').length;
    const printed = new Promise((resolve) => {
      seen = () => out.split(' gc=mc ').length > before && resolve();
      seen();
    });
    await collect(child);
    await printed;
  };
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  try {
    const port = await listening(child, contender.id);
    const values = credentials(material, contender, workload);
    const load = (n) => send({ port, agent, contender, values, n, connections: CONNECTIONS });
    await load(WARM);
    await fullCollection();
    out = '';
    await load(COUNT);
    // The window ends with one more full collection, whose own line is left out.
    await fullCollection();
    return out.split('\n').filter((line) => line.includes(' pause='));
  } finally {
    agent.destroy();
    child.kill('SIGKILL');
  }
}

/** Sums of V8's name=value pairs over the window (the last line, the marker collection, left out). */
function summarise(lines) {
  const s = { scavenges: 0, scavengePause: 0, markCompacts: 0, allocated: 0, survived: 0, promoted: 0 };
  for (const line of lines.slice(0, -1)) {
    const field = (name) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
    if (/\bgc=s\b/.test(line)) {
      s.scavenges += 1;
      s.scavengePause += field('pause');
      s.survived += field('new_space_survived');
    } else if (/\bgc=mc\b/.test(line)) s.markCompacts += 1;
    s.allocated += field('allocated');
    s.promoted += field('promoted');
  }
  return s;
}
