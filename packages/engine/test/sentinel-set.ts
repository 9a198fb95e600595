import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@authlayer/testkit';
import { Redis } from 'ioredis';

/** A primary, one replica of it and one sentinel watching them, all real redis-servers. */
export interface SentinelSet {
  /** The name the sentinel monitors the primary under (`sentinel monitor <name> ...`). */
  readonly name: string;
  readonly primaryPort: number;
  readonly replicaPort: number;
  readonly sentinelPort: number;
  /** The folder every process works in (logs, `dump.rdb`, the sentinel's config); removed by stop. */
  readonly dir: string;
  /** The port the sentinel names as the primary now (`SENTINEL get-master-addr-by-name`). */
  primaryNow(): Promise<number>;
  /** Asks the sentinel for a failover and resolves once it names another primary. */
  failover(): Promise<number>;
  stop(): Promise<void>;
}

/** Polls `check` until it holds (no bound of ours: the test's timeout is the bound). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Starts `redis-server` with `args` in `dir`, its log in `<dir>/<label>.log`. Never in the
 * current folder: a replica that syncs writes `dump.rdb` into its `dir`, and a redis-server
 * started later in that folder loads it (a stale list, and a partial resync that never logs a
 * full sync: the hang this helper's first version met).
 */
function launch(watch: Watch, label: string, args: string[]): ChildProcess {
  const log = join(watch.dir, `${label}.log`);
  const child = spawn('redis-server', [...args, '--dir', watch.dir, '--logfile', log], { stdio: 'ignore' });
  const failed = (why: string) => {
    if (watch.stopping) return;
    const tail = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-5).join(' | ') : '';
    watch.failure ??= new Error(`redis-server (${label}) ${why}: ${tail}`);
  };
  child.on('error', (error) => failed(error.message));
  child.on('exit', (code) => failed(`exited (${String(code)})`));
  return child;
}

/** The set's folder, and why a process of it died while it was wanted (a port taken meanwhile, say). */
interface Watch {
  readonly dir: string;
  failure?: Error;
  stopping: boolean;
}

/** Waits until the server on `port` answers what `ready` wants from its reply to `command`. */
async function waitFor(
  watch: Watch,
  port: number,
  command: string[],
  ready: (reply: unknown) => boolean,
): Promise<void> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50 });
  client.on('error', () => {});
  try {
    await until(async () => {
      if (watch.failure) throw watch.failure;
      return ready(await client.call(command[0]!, ...command.slice(1)).catch(() => null));
    });
  } finally {
    client.disconnect();
  }
}

/** `SENTINEL replicas` rows as field/value records. */
function rows(reply: unknown): Record<string, string | undefined>[] {
  if (!Array.isArray(reply)) return [];
  return reply.map((row: string[]) => Object.fromEntries(row.flatMap((v, i) => (i % 2 ? [] : [[v, row[i + 1]]]))));
}

/** Three distinct free ports (freePort may hand out one it just handed out). */
async function threePorts(): Promise<[number, number, number]> {
  const ports = new Set<number>();
  while (ports.size < 3) ports.add(await freePort());
  return [...ports] as [number, number, number];
}

const SERVER = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0'];

/**
 * Starts the set and resolves once it could fail over: the replica's link to the primary is up
 * (`INFO replication`: `master_link_status:up`) and the sentinel knows the replica and sees its
 * link up (`SENTINEL replicas`), so `SENTINEL FAILOVER` has a replica to promote.
 * `redis-server --sentinel` is in Debian's redis-server package; nothing else is needed.
 */
export async function startSentinelSet(name = 'authlayer'): Promise<SentinelSet> {
  const dir = mkdtempSync(join(tmpdir(), 'authlayer-sentinel-'));
  const watch: Watch = { dir, stopping: false };
  const [primaryPort, replicaPort, sentinelPort] = await threePorts();
  const children = [
    launch(watch, 'primary', ['--port', String(primaryPort), ...SERVER]),
    launch(watch, 'replica', [
      '--port',
      String(replicaPort),
      ...SERVER,
      '--replicaof',
      '127.0.0.1',
      String(primaryPort),
    ]),
  ];
  await waitFor(watch, replicaPort, ['INFO', 'replication'], (r) => String(r).includes('master_link_status:up'));
  const config = join(dir, 'sentinel.conf');
  writeFileSync(
    config,
    [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 1`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      '',
    ].join('\n'),
  );
  children.push(launch(watch, 'sentinel', [config, '--sentinel']));
  const replicaSeen = (r: unknown) =>
    rows(r).some(
      (row) => row.port === String(replicaPort) && row.flags === 'slave' && row['master-link-status'] === 'ok',
    );
  await waitFor(watch, sentinelPort, ['SENTINEL', 'replicas', name], replicaSeen);
  const primaryNow = async () => {
    const client = new Redis({ port: sentinelPort, host: '127.0.0.1' });
    try {
      return Number(((await client.call('SENTINEL', 'get-master-addr-by-name', name)) as string[])[1]);
    } finally {
      client.disconnect();
    }
  };
  return {
    name,
    primaryPort,
    replicaPort,
    sentinelPort,
    dir,
    primaryNow,
    failover: async () => {
      const before = await primaryNow();
      await waitFor(watch, sentinelPort, ['SENTINEL', 'failover', name], (r) => r === 'OK');
      await until(async () => (await primaryNow()) !== before);
      return primaryNow();
    },
    stop: async () => {
      watch.stopping = true;
      for (const child of children.reverse()) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
