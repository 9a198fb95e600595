// The load generator, run as a child process pinned to the other core. Holds the token lists in
// memory and runs autocannon on request over IPC. Every request passes through setupRequest,
// also for the one-token workload, so that the client does the same work for every contender.
// A measurement is many short runs (slices) alternating between two servers; each server
// (`tag`) keeps its own place in each list across its slices, so a pool of 2 000 tokens is
// walked in order by every server and none sees a token again before the 1 999 others.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const BODY = JSON.stringify({ query: 'hello' });
const lists = new Map();
/** Where each server (tag) is in each list: `${tag}#${list key}` → next index. */
const cursors = new Map();

function values(spec) {
  // spec: {file, field} for tokens, or {value} for one literal
  if (spec.value !== undefined) return { key: 'value', list: [spec.value] };
  const key = `${spec.file}#${spec.field}`;
  if (!lists.has(key)) {
    const data = JSON.parse(readFileSync(spec.file, 'utf8'));
    lists.set(key, Array.isArray(data[spec.field]) ? data[spec.field] : [data[spec.field]]);
  }
  return { key, list: lists.get(key) };
}

function run({ url, duration, connections, header, bearer, spec, tag = url }) {
  const { key, list } = values(spec);
  const cursor = `${tag}#${key}`;
  let next = cursors.get(cursor) ?? 0;
  const latencies = [];
  const status = {};
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        duration,
        connections,
        pipelining: 1,
        requests: [
          {
            method: 'POST',
            path: '/invoke',
            setupRequest(req) {
              const value = list[next];
              next = next + 1 === list.length ? 0 : next + 1;
              return {
                ...req,
                body: BODY,
                headers: { 'content-type': 'application/json', [header]: bearer ? `Bearer ${value}` : value },
              };
            },
          },
        ],
      },
      (error, result) => {
        cursors.set(cursor, next);
        if (error) return reject(error);
        const cpu = process.cpuUsage(cpu0);
        const clientBusy = (cpu.user + cpu.system) / ((performance.now() - wall0) * 1000);
        latencies.sort((a, b) => a - b);
        const pct = (p) =>
          latencies.length === 0 ? NaN : latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
        const ok = Object.entries(status).reduce((n, [code, count]) => (code.startsWith('2') ? n + count : n), 0);
        resolve({
          seconds: result.duration,
          responses: latencies.length,
          ok,
          status,
          rps: ok / result.duration,
          p50: pct(0.5),
          p99: pct(0.99),
          errors: result.errors,
          timeouts: result.timeouts,
          distinct: list.length,
          clientBusy,
          latencies, // sorted, ms: the measurement takes percentiles over all its slices
        });
      },
    );
    // autocannon's own histogram has 1 ms resolution; keep every latency (ms, fractional) instead.
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      status[statusCode] = (status[statusCode] ?? 0) + 1;
    });
  });
}

process.on('message', (message) => {
  if (message?.type !== 'run') return;
  run(message).then(
    (result) => process.send({ type: 'result', id: message.id, result }),
    (error) => process.send({ type: 'result', id: message.id, error: String(error?.stack ?? error) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready' });
