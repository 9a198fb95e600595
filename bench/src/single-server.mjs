// What the single-server tools (instructions, gc) share: the servers' environment, and the
// requests they send (the HTTP bench's headers and a JSON body of its shape, over node:http
// keep-alive connections, each answer checked for 200).
import { request } from 'node:http';
import { startRedis } from '@authlayer/testkit';
import { contenderById, ENV, materialEnv } from './contenders.mjs';
import { loadMaterial } from './material.mjs';

const BODY = JSON.stringify({ query: 'What is the capital of France?' });

/**
 * The contenders named by `ids` (an unknown one throws), the key material, a redis-server when one
 * of them needs it (stop it when done), and the environment every server is started with.
 */
export async function setUp(ids) {
  const unknown = ids.filter((id) => contenderById(id) === undefined);
  if (unknown.length > 0) throw new Error(`unknown contender(s): ${unknown.join(', ')}`);
  const material = await loadMaterial(2_000);
  const redis = ids.some((id) => contenderById(id).needsRedis) ? await startRedis() : null;
  const env = { ...process.env, ...materialEnv(material), ...(redis === null ? {} : { [ENV.redisUrl]: redis.url }) };
  return { material, redis, env };
}

/** What the HTTP bench sends this contender in this workload: one value, or the pool. */
export function credentials(material, contender, workload) {
  if (contender.apiKeys === 'one') return [material.keys.apiKey];
  const alg = contender.alg ?? 'RS256';
  return workload === 'one' ? [material.tokens[alg].one] : material.tokens[alg].pool;
}

let asked = 0;

/** A full collection in the server (`server.mjs` answers once done). */
export function collect(child) {
  const id = ++asked;
  return new Promise((resolve) => {
    const onMessage = (m) => {
      if (m?.type !== 'usage' || m.id !== id) return;
      child.off('message', onMessage);
      resolve();
    };
    child.on('message', onMessage);
    child.send({ type: 'usage', id, gc: true });
  });
}

/** The port a `server.mjs` child reports once it listens. */
export function listening(child, id) {
  return new Promise((resolve, reject) => {
    child.on('message', (m) => m?.type === 'ready' && resolve(m.port));
    child.once('exit', (code) => reject(new Error(`${id} exited with ${code}`)));
  });
}

/** `n` requests over `connections` keep-alive connections of `agent`; each must be answered 200. */
export async function send({ port, agent, contender, values, n, connections }) {
  let next = 0;
  let sent = 0;
  const bearer = contender.header === 'authorization';
  const one = () =>
    new Promise((resolve, reject) => {
      const value = values[next];
      next = (next + 1) % values.length;
      const headers = { 'content-type': 'application/json', [contender.header]: bearer ? `Bearer ${value}` : value };
      const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/invoke', agent, headers }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`${contender.id}: ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end(BODY);
    });
  // A keep-alive connection the server closed while idle (its 5 s timeout, passed while callgrind
  // dumped or collected) is reset on reuse: that request is sent again on a new one.
  const once = () => one().catch((error) => (error.code === 'ECONNRESET' ? one() : Promise.reject(error)));
  const worker = async () => {
    while (sent < n) {
      sent += 1;
      await once();
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
}
