// One contender's server, run by the orchestrator as a child process (pinned with taskset).
// Express: POST /invoke behind the contender's middleware, then express.json(), answering
// {query, auth}. Fastify (contenders with `framework: 'fastify'`): the contender sets the app up
// (a plugin, an onRequest hook), then the same POST /invoke with Fastify's own JSON body parser.
// Talks over IPC: sends {type: 'ready', port} once listening; answers {type: 'usage'} with its
// CPU time, RSS (and, when asked, the heap retained after a full GC) and the number of
// requests it has seen. Started with --expose-gc, which changes nothing else.
import { readFileSync } from 'node:fs';
import express from 'express';
import { contenderById } from './contenders.mjs';

const contender = contenderById(process.env.BENCH_CONTENDER ?? '');
if (contender === undefined) throw new Error(`unknown contender "${process.env.BENCH_CONTENDER}"`);

let handled = 0;
const built = await contender.build(process.env);
const SERVERS = { fastify: fastifyServer, hono: honoServer };
const server = await (SERVERS[contender.framework] ?? expressServer)(built);

/** Express 5; `middleware` is null for bare Express. */
function expressServer(middleware) {
  const app = express();
  app.use((_req, _res, next) => {
    handled += 1;
    next();
  });
  const route = [
    express.json(),
    (req, res) => res.json({ query: req.body.query, auth: req.auth?.payload ?? req.auth ?? null }),
  ];
  if (middleware === null) app.post('/invoke', ...route);
  else app.post('/invoke', middleware, ...route);
  // The same error handler for every contender: peers report a refused token through next(err).
  app.use((err, _req, res, _next) => {
    const status = Number.isInteger(err?.status) && err.status >= 400 && err.status < 600 ? err.status : 500;
    res.status(status).json({ error: status === 401 ? 'unauthorized' : 'error', message: 'refused' });
  });
  const listening = app.listen(0, '127.0.0.1', () => {
    process.send({ type: 'ready', port: listening.address().port });
  });
  return listening;
}

/**
 * Fastify 5, no logger; `setUp(app)` registers the contender's plugin or hook (null for bare
 * Fastify). The counter is the first onRequest hook, as the counting middleware is Express's first.
 * A refusal is the contender's own answer (authlayer's 401, @fastify/jwt's error through
 * Fastify's error handler, 401 too).
 */
async function fastifyServer(setUp) {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.addHook('onRequest', (_request, _reply, done) => {
    handled += 1;
    done();
  });
  if (setUp !== null) await setUp(app);
  // request.auth: @authlayer/fastify's AuthContext; request.user: @fastify/jwt's claims
  app.post('/invoke', async (request) => ({ query: request.body.query, auth: request.auth ?? request.user ?? null }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send({ type: 'ready', port: app.server.address().port });
  return app.server;
}

/**
 * Hono 4 on `@hono/node-server`; `setUp(app)` registers the contender's middleware (null for bare
 * Hono). The counter is the first middleware. A refusal is the contender's own answer (authlayer's
 * 401; Hono's HTTPException 401 for hono/jwt and hono/jwk).
 */
async function honoServer(setUp) {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const app = new Hono();
  app.use(async (_c, next) => {
    handled += 1;
    await next();
  });
  if (setUp !== null) await setUp(app);
  // c.get('auth'): @authlayer/hono's AuthContext; c.get('jwtPayload'): hono/jwt's and hono/jwk's claims
  app.post('/invoke', async (c) => {
    const { query } = await c.req.json();
    return c.json({ query, auth: c.get('auth') ?? c.get('jwtPayload') ?? null });
  });
  const listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
    process.send({ type: 'ready', port: info.port });
  });
  return listening;
}

/**
 * ns the main thread spent runnable but not running (Linux schedstat): its core was held by
 * another process, or by this one's own helper threads. null where there is no /proc.
 */
function runQueueWait() {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * µs of CPU the main thread used (Linux /proc, 10 ms ticks): the rest of process.cpuUsage() is
 * the helper threads' (GC, compiler, libuv's pool where WebCrypto and async node:crypto run).
 * null where there is no /proc.
 */
function mainThreadCpu() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11], fields[12]: utime, stime (fields 14 and 15 of proc(5), counted from the state)
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS;
  } catch {
    return null;
  }
}
const TICKS = 100; // USER_HZ: 100 on every Linux architecture Node.js supports

process.on('message', (message) => {
  if (message?.type === 'usage') {
    const wall = Number(process.hrtime.bigint()); // ns
    const cpu = process.cpuUsage();
    const waited = runQueueWait();
    const main = mainThreadCpu();
    const rss = process.memoryUsage().rss;
    let retained = null;
    let settledRss = null;
    if (message.gc && typeof globalThis.gc === 'function') {
      // After the measurement only: what the middleware keeps (caches), without garbage, and the
      // RSS once the collector has given back what it could (the RSS above is a snapshot of a
      // heap anywhere between its live size and the growth V8 allows it).
      globalThis.gc();
      ({ heapUsed: retained, rss: settledRss } = process.memoryUsage());
    }
    process.send({ type: 'usage', id: message.id, cpu, main, wall, waited, rss, settledRss, retained, handled });
  } else if (message?.type === 'stop') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
