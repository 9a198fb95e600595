// What one introspection costs the asking process: CPU µs per call of `fetchJsonObject` (core's
// one bounded JSON fetch, node:http over a keep-alive pool), of the platform's `fetch` as core
// used it before, and of a bare node:http request over a keep-alive agent (the floor). A loopback
// server in a child process answers each POST with an introspection answer, so its CPU is not
// counted. 8 calls in flight, 6 alternating rounds of 2 000 calls, median.
//
//   pnpm --filter @authlayer/bench fetch-cost
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fetchJsonObject } from '@authlayer/core/internal';

const CALLS = 2000;
const ROUNDS = 6;
const IN_FLIGHT = 8;
const child = fork(new URL('./fetch-cost-server.mjs', import.meta.url));
const port = await new Promise((resolve) => child.once('message', resolve));
const url = `http://127.0.0.1:${port}/introspect`;
const headers = {
  accept: 'application/json',
  'content-type': 'application/x-www-form-urlencoded',
  authorization: 'Basic YXBpOnNlY3JldA==',
};
const agent = new Agent({ keepAlive: true });

const contenders = {
  'fetchJsonObject (node:http, keep-alive pool)': (body) =>
    fetchJsonObject(url, { timeoutMs: 5000, maxBytes: 65536, init: { method: 'POST', headers, body } }),
  'platform fetch (undici), as before': async (body) => {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(5000),
    });
    return response.json();
  },
  'bare node:http request, keep-alive agent (floor)': (body) =>
    new Promise((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        agent,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      });
      req.end(body);
    }),
};

async function cpuPerCall(call, calls) {
  const start = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < calls) {
        next += 1;
        await call(`token=t${next}&token_type_hint=access_token`);
      }
    }),
  );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / calls;
}

for (const call of Object.values(contenders)) await cpuPerCall(call, 500); // warm-up
const samples = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, call] of Object.entries(contenders)) samples[name].push(await cpuPerCall(call, CALLS));
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.log(`Node.js ${process.version}, ${ROUNDS} rounds × ${CALLS} calls, ${IN_FLIGHT} in flight; CPU µs per call:`);
console.log('| client | CPU µs per call |');
console.log('|---|--:|');
for (const name of Object.keys(contenders)) console.log(`| ${name} | ${median(samples[name]).toFixed(0)} |`);
child.kill();
