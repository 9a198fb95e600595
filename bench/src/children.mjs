// Child processes of the orchestrator: spawned (optionally pinned to a core with taskset) with an
// IPC channel, and asked questions over it.
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * Whether both cores can be pinned: taskset exists, the machine has at least two CPUs and
 * the kernel lets us use the two we were given. Returns a reason when not.
 */
export function checkPinning(cpus) {
  if (availableParallelism() < 2) return { ok: false, reason: `only ${availableParallelism()} CPU available` };
  for (const cpu of cpus) {
    const probe = spawnSync('taskset', ['-c', cpu, 'true'], { stdio: 'ignore' });
    if (probe.error) return { ok: false, reason: 'taskset not found (apt-get install util-linux)' };
    if (probe.status !== 0) return { ok: false, reason: `taskset -c ${cpu} failed` };
  }
  return { ok: true };
}

/** Spawns `node script` with IPC, through `taskset -c cpu` when cpu is not null. */
export function spawnNode(script, { cpu, env, args = [], nodeArgs = [] }) {
  const node = [...nodeArgs, script, ...args];
  const [command, argv] = cpu === null ? [process.execPath, node] : ['taskset', ['-c', cpu, process.execPath, ...node]];
  const child = spawn(command, argv, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return child;
}

let nextId = 1;

/** Waits for the first message of `type` (and `id`, when given); rejects when the child exits or on timeout. */
export function waitFor(child, type, { id, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message) => {
      if (message?.type !== type || (id !== undefined && message.id !== id)) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code, signal) => {
      cleanup();
      reject(new Error(`child exited (${signal ?? code}) while waiting for "${type}"`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no "${type}" from the child within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Sends `{type, id, ...payload}` and resolves with the answer of type `answer` and the same id. */
export function ask(child, type, payload = {}, { answer = type, timeoutMs } = {}) {
  const id = nextId++;
  const reply = waitFor(child, answer, { id, timeoutMs });
  child.send({ type, id, ...payload });
  return reply;
}

/** Asks a child to stop and kills it when it does not within 5 s (a CPU profile takes a moment to write). */
export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (child.connected) child.send({ type: 'stop' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await child.exited;
  clearTimeout(timer);
}
