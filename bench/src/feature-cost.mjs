// What each feature of the performance issue adds to one decision, measured in one process
// without HTTP: the same middleware with and without the feature, called directly on an
// Express request object, alternating rounds (median of 9 rounds of CALLS decisions each).
// The HTTP bench cannot resolve a difference of 0.02 of bare Express's CPU (its rounds spread by
// more); this can: a feature's cost in ns, and that cost as a share of bare Express's CPU per
// request in the last HTTP run (results/latest.md), which is the ratio it takes off.
//
//   pnpm --filter @authlayer/bench feature-cost        (after a build; redis-server on the PATH
//                                                      for the revocation rows, else skipped)
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createAuthMiddleware } from '@authlayer/express';
import { accessTable50, ENV } from './contenders.mjs';
import { AUDIENCE, ISSUER, loadMaterial } from './material.mjs';

const CALLS = Number(process.env.CALLS ?? 100_000);
const ROUNDS = 9;
const logger = { info() {}, warn() {}, error() {}, debug() {} };
const importModule = (name) => import(name);

// The HTTP bench's material (bench/.cache/), its default token pool so that nothing is minted again.
const material = await loadMaterial(2_000);
const env = {
  [ENV.apiKey]: material.keys.apiKey,
  [ENV.checksummedApiKey]: material.keys.checksummedApiKey,
  [ENV.RS256]: material.keys.RS256.publicPem,
};
const token = material.tokens.RS256.one;

/** An Express request for `POST /invoke` with `headers` (Express's own prototype, so `req.path` is its getter). */
function requestWith(headers) {
  const req = Object.create(express.request);
  Object.assign(req, {
    method: 'POST',
    url: '/invoke',
    originalUrl: '/invoke',
    headers,
    rawHeaders: Object.entries(headers).flat(),
    socket: { remoteAddress: '127.0.0.1' },
    complete: true,
  });
  return req;
}
const response = () => ({
  locals: {},
  headersSent: false,
  setHeader() {},
  getHeader() {},
  removeHeader() {},
  on() {},
  once() {},
});

/** The middleware `config` makes (`access`: mounted as `auth.access`) and a request it allows. */
async function decisionOf(config, headers, { access = false, keyEnv = env } = {}) {
  const auth = await createAuthMiddleware(config, { env: keyEnv, logger, importModule });
  const req = requestWith(headers);
  const res = response();
  const middleware = access ? auth.access : auth;
  let passed = 0;
  const next = (error) => {
    if (error !== undefined) throw error;
    passed += 1;
  };
  // Whether it answers in the same turn (next() called before the middleware returns); else a
  // decision is awaited, and the first one must pass the request on.
  middleware(req, res, next);
  const sync = passed === 1;
  const run = () =>
    new Promise((resolve, reject) =>
      middleware(req, res, (error) => (error === undefined ? resolve() : reject(error))),
    );
  if (!sync) await run();
  return {
    auth,
    run: sync ? () => middleware(req, res, next) : run,
    sync,
  };
}

async function nsPerCall(decision) {
  const start = process.hrtime.bigint();
  if (decision.sync) for (let i = 0; i < CALLS; i += 1) decision.run();
  else for (let i = 0; i < CALLS; i += 1) await decision.run();
  return Number(process.hrtime.bigint() - start) / CALLS;
}

const apiKeyHeaders = { 'x-api-key': material.keys.apiKey };
const one = { auth: { mode: 'api_key', api_keys: { env_var: ENV.apiKey } } };
const keyClient = (own) => ({
  auth: { mode: 'api_key', api_keys: { keys: [{ name: 'bench', env_var: ENV.apiKey, ...own }] } },
  rate_limit: { requests_per_minute: 1_000_000_000, store: 'memory' },
});
const jwt = {
  auth: { mode: 'jwt', jwt: { issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256'], public_key_env: ENV.RS256 } },
};
const bearer = { authorization: `Bearer ${token}` };

let redis = null;
try {
  const { startRedis } = await import('@authlayer/testkit');
  redis = await startRedis();
} catch (error) {
  console.error(`revocation rows skipped: ${error.message}`);
}
const revocation = redis === null ? null : { revocation: { store: redis.url } };

// access.candidate: the same 50-entry table as a candidate (it agrees: no line, no count), so
// the row is what judging a second table costs every request.
const candidateFile = join(await mkdtemp(join(tmpdir(), 'bench-candidate-')), 'candidate.json');
await writeFile(candidateFile, JSON.stringify(accessTable50()));

/** [feature, with, without]: each a decision made by `decisionOf`. */
const PAIRS = [
  [
    'access.candidate, 50 entries beside 50 (API key)',
    decisionOf({ ...one, access: { ...accessTable50(), candidate: candidateFile } }, apiKeyHeaders, { access: true }),
    decisionOf({ ...one, access: accessTable50() }, apiKeyHeaders, { access: true }),
  ],
  [
    'auth.access, 50 entries (API key)',
    decisionOf({ ...one, access: accessTable50() }, apiKeyHeaders, { access: true }),
    decisionOf(one, apiKeyHeaders),
  ],
  [
    'auth.access, 50 entries (JWT RS256 cache hit)',
    decisionOf({ ...jwt, access: accessTable50() }, bearer, { access: true }),
    decisionOf(jwt, bearer),
  ],
  [
    'format: checksummed (API key)',
    decisionOf(
      {
        auth: {
          mode: 'api_key',
          api_keys: { format: 'checksummed', keys: [{ name: 'bench', env_var: ENV.checksummedApiKey }] },
        },
      },
      { 'x-api-key': material.keys.checksummedApiKey },
    ),
    decisionOf(
      { auth: { mode: 'api_key', api_keys: { keys: [{ name: 'bench', env_var: ENV.apiKey }] } } },
      apiKeyHeaders,
    ),
  ],
  [
    'a client with its own requests_per_minute (memory)',
    decisionOf(keyClient({ requests_per_minute: 1_000_000_000 }), apiKeyHeaders),
    decisionOf(keyClient({}), apiKeyHeaders),
  ],
  [
    'rate_limit on the memory store (API key)',
    decisionOf(keyClient({}), apiKeyHeaders),
    decisionOf(
      { auth: { mode: 'api_key', api_keys: { keys: [{ name: 'bench', env_var: ENV.apiKey }] } } },
      apiKeyHeaders,
    ),
  ],
  ...(revocation === null
    ? []
    : [
        [
          'revocation.store, empty list (API key)',
          decisionOf({ ...one, ...revocation }, apiKeyHeaders),
          decisionOf(one, apiKeyHeaders),
        ],
        [
          'revocation.store, empty list (JWT RS256 cache hit)',
          decisionOf({ ...jwt, ...revocation }, bearer),
          decisionOf(jwt, bearer),
        ],
      ]),
];

/** bare Express's server CPU per request (µs) in the last HTTP run, one token reused; null when unknown. */
async function bareMicroseconds() {
  try {
    const md = await readFile(new URL('../results/latest.md', import.meta.url), 'utf8');
    const row = md.split('\n').find((line) => line.startsWith('| **bare Express 5'));
    const header = md.split('\n').find((line) => line.startsWith('| contender |'));
    const column = header.split('|').findIndex((cell) => cell.trim() === 'CPU µs/req');
    return Number(row.split('|')[column]) || null;
  } catch {
    return null;
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const bare = await bareMicroseconds();
const rows = [];
// ONLY=<text>: the rows whose feature contains it (the others are built, then closed).
const only = process.env.ONLY;
for (const [feature, withIt, without] of PAIRS) {
  const [a, b] = await Promise.all([withIt, without]);
  if (only !== undefined && !feature.includes(only)) {
    await Promise.all([a.auth.close(), b.auth.close()]);
    continue;
  }
  const samples = { with: [], without: [] };
  await nsPerCall(a); // warm-up, both
  await nsPerCall(b);
  for (let round = 0; round < ROUNDS; round += 1) {
    samples.with.push(await nsPerCall(a));
    samples.without.push(await nsPerCall(b));
  }
  const cost = median(samples.with.map((value, i) => value - samples.without[i]));
  rows.push({
    feature,
    with_ns: Math.round(median(samples.with)),
    without_ns: Math.round(median(samples.without)),
    cost_ns: Math.round(cost),
    ratio_taken: bare === null ? null : Number((cost / 1000 / bare).toFixed(4)),
  });
  await Promise.all([a.auth.close(), b.auth.close()]);
}
await redis?.stop();
console.log(
  `bare Express, CPU per request in results/latest.md: ${bare ?? 'unknown'} µs; ${CALLS} decisions a round, median of ${ROUNDS}\n`,
);
console.log("| feature | with, ns | without, ns | cost, ns | of bare Express's CPU per request |");
console.log('|---|--:|--:|--:|--:|');
for (const r of rows) {
  console.log(
    `| ${r.feature} | ${r.with_ns} | ${r.without_ns} | ${r.cost_ns} | ${r.ratio_taken === null ? '—' : r.ratio_taken.toFixed(3)} |`,
  );
}
