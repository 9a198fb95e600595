// Medians, ratios to the bare twin (Express or Fastify) of each paired measurement, and the markdown of the results.

const median = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const MiB = 2 ** 20;

/**
 * A sample whose server was busy less than this share of the wall time was starved (another
 * process held its core, or the client fell behind): its CPU per request is inflated by the
 * lost batching, so it is left out whenever its contender has samples that were not.
 */
export const MIN_BUSY = 0.5;
/** Above this 1-minute load average when a run starts, its figures are marked as noise. */
export const QUIET_LOAD = 1.5;
const starved = (s) => Number.isFinite(s.busy) && s.busy < MIN_BUSY;
/** The samples that are not `bad`, or all of them when every one is. */
const keepUnlessAll = (list, bad) => (list.some((s) => !bad(s)) ? list.filter((s) => !bad(s)) : list);
/** A paired sample counts when neither the contender's server nor its bare twin starved. */
const pairStarved = (s) => starved(s) || starved(s.bare);
/** A bare framework's row (bare Express, bare Fastify): the ceiling of its framework's contenders. */
const isBare = (c) => c.family === 'bare';

/**
 * Per workload and contender: medians over rounds of the absolute values and of the ratios to
 * the bare server of its framework (Express or Fastify) measured in the same pair (alternating
 * slices, see measure.mjs). Ratios
 * read "higher is better, 1.00 = as good as bare": req/s is contender / bare; latency, CPU per
 * request and RSS are bare / contender. `rssOverBare` is the median of (contender RSS - bare RSS)
 * in MiB. A bare's own row summarises the bare twins of its framework in the workload (bare
 * Express's the Express contenders', bare Fastify's the Fastify ones'); its "range" is each twin's
 * CPU per request against their median: how far the machine's speed moved during the run.
 */
export function summarize(samples, contenders, workloads) {
  const out = {};
  for (const workload of workloads) {
    out[workload] = [];
    const inWorkload = samples.filter((s) => s.workload === workload);
    for (const c of contenders.filter((x) => x.workloads.includes(workload) || isBare(x))) {
      const bare = isBare(c);
      // A sample's twin carries the id of its bare contender (`bare`, `bare-fastify`).
      const all = bare
        ? inWorkload.filter((s) => s.bare.id === c.id).map((s) => s.bare)
        : inWorkload.filter((s) => s.id === c.id);
      if (all.length === 0) continue;
      const mine = keepUnlessAll(all, bare ? starved : pairStarved);
      const bareCpu = median(mine.map((s) => s.cpuPerRequest));
      const pairs = bare ? mine.map((s) => [s, { ...s, cpuPerRequest: bareCpu }]) : mine.map((s) => [s, s.bare]);
      const ratio = (key, invert) => pairs.map(([s, ref]) => (invert ? ref[key] / s[key] : s[key] / ref[key]));
      const cpuRatios = ratio('cpuPerRequest', true);
      // bare's own ratios are 1 by definition
      const mid = (xs) => (bare ? 1 : median(xs));
      out[workload].push({
        id: c.id,
        framework: c.framework ?? 'express',
        family: c.family,
        label: c.label,
        alg: c.alg,
        samples: mine.length,
        starved: all.length - mine.length,
        rps: median(mine.map((s) => s.rps)),
        p50: median(mine.map((s) => s.p50)),
        p99: median(mine.map((s) => s.p99)),
        cpuPerRequest: median(mine.map((s) => s.cpuPerRequest)),
        rss: median(mine.map((s) => s.rss)) / MiB,
        busy: median(mine.map((s) => s.busy)),
        waiting: median(mine.map((s) => s.waiting ?? NaN)),
        mainShare: median(mine.map((s) => s.mainShare ?? NaN)),
        ratio: {
          rps: mid(ratio('rps', false)),
          p50: mid(ratio('p50', true)),
          p99: mid(ratio('p99', true)),
          cpu: mid(cpuRatios),
          rss: mid(ratio('rss', true)),
        },
        cpuRatioRange: cpuRatios.length > 0 ? [Math.min(...cpuRatios), Math.max(...cpuRatios)] : [NaN, NaN],
        rssOverBare: median(pairs.map(([s, ref]) => (s.rss - ref.rss) / MiB)),
        settledRssOverBare: median(pairs.map(([s, ref]) => ((s.settledRss ?? NaN) - (ref.settledRss ?? NaN)) / MiB)),
        retained: median(mine.map((s) => s.retained ?? NaN)) / MiB,
        retainedOverBare: median(pairs.map(([s, ref]) => ((s.retained ?? NaN) - ref.retained) / MiB)),
        usesPerToken: median(mine.map((s) => s.usesPerToken ?? NaN)),
        non2xx: all.reduce((n, s) => n + (s.responses - s.ok), 0),
      });
    }
  }
  return out;
}

const f = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
const r2 = (x) => f(x, 2);
const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)} %` : '—');

const WORKLOAD_TITLE = {
  one: 'One token reused for every request',
  pool: (n) =>
    `${n.toLocaleString('en-US')} distinct tokens, rotated (every request a token the server has not just seen)`,
};

function table(rows, workload) {
  const head =
    '| contender | alg | req/s | ×bare | p50 ms | ×bare | p99 ms | ×bare | CPU µs/req | ×bare | ×bare range | server busy / waiting / main thread | RSS MiB | ×bare | Δbare MiB | RSS after GC Δbare MiB | heap after GC MiB | Δbare MiB |' +
    (workload === 'pool' ? ' uses/token |' : '');
  const sep =
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|' + (workload === 'pool' ? '--:|' : '');
  const lines = rows.map((r) => {
    let name = r.non2xx > 0 ? `${r.label} (**${r.non2xx} non-2xx**)` : r.label;
    if (r.starved > 0) name += ` (${r.starved} starved sample${r.starved > 1 ? 's' : ''} left out)`;
    const cells = [
      isBare(r) ? `**${name}**` : name,
      r.alg ?? '—',
      f(r.rps, 0),
      r2(r.ratio.rps),
      r2(r.p50),
      r2(r.ratio.p50),
      r2(r.p99),
      r2(r.ratio.p99),
      f(r.cpuPerRequest, 1),
      `**${r2(r.ratio.cpu)}**`,
      `${r2(r.cpuRatioRange[0])}–${r2(r.cpuRatioRange[1])}`,
      `${pct(r.busy)} / ${pct(r.waiting)} / ${pct(r.mainShare)}`,
      f(r.rss, 1),
      r2(r.ratio.rss),
      isBare(r) ? '0' : f(r.rssOverBare, 1),
      isBare(r) ? '0' : f(r.settledRssOverBare, 1),
      f(r.retained, 1),
      isBare(r) ? '0' : f(r.retainedOverBare, 1),
    ];
    if (workload === 'pool') cells.push(f(r.usesPerToken, 1));
    return `| ${cells.join(' | ')} |`;
  });
  return [head, sep, ...lines].join('\n');
}

const cpuGoal = (text, workload, match, target) => ({ text, workload, match, target, metric: 'cpu' });
const byId = (id) => (r) => r.id === id;

/** The id of authlayer's JWT contender for `alg` with the key from `public_key_env` (`prefix`: Express's or Fastify's). */
const jwtId = (prefix, alg) => `${prefix}-${alg.toLowerCase()}-${alg === 'HS256' ? 'secret' : 'pem'}`;
const WORKLOAD_WORDS = { one: 'one token reused (cache hit)', pool: 'distinct tokens' };

/**
 * A head-to-head goal: the contender `mineId` above the rival `rivalId` in the same workload of the
 * same run (each against the bare of its own framework, and the two share one).
 */
const aheadGoal = (text, workload, mineId, rivalId, rivalName) =>
  cpuGoal(text, workload, byId(mineId), (rows, r) => {
    const rival = rows.find(byId(rivalId));
    if (rival === undefined || !Number.isFinite(rival.ratio.cpu)) return { target: null, met: null };
    return {
      target: rival.ratio.cpu,
      met: r.ratio.cpu > rival.ratio.cpu,
      shown: `> ${r2(rival.ratio.cpu)} (${rivalName})`,
    };
  });
const isAuthlayerJwt = (alg) => (r) => r.family === 'authlayer' && r.alg === alg && r.id !== 'authlayer-jwt-rs256-jwks';

const PEERS = [
  'fast-jwt 6, cache: true (hand-written)',
  'jose 6 (hand-written)',
  'express-oauth2-jwt-bearer',
  'express-jwt',
];
/** The peer on Fastify (paired with bare Fastify, as @authlayer/fastify is). */
const FASTIFY_PEER = '@fastify/jwt, cache: true';
// node:crypto's synchronous call, WebCrypto, and node:crypto's callback form (libuv's pool).
const LIMITS = ['physical limit', 'physical limit, WebCrypto', 'physical limit, libuv pool'];

/** The cheapest of the limits measured for `alg` in the same run: the highest ratio. */
function cheapestLimit(rows, alg) {
  const ratios = rows.filter((p) => LIMITS.includes(p.family) && p.alg === alg).map((p) => p.ratio.cpu);
  return ratios.length === 0 ? undefined : Math.max(...ratios);
}

/** The best peer's ratio for `alg` in the same run. */
function bestPeer(rows, alg) {
  const ratios = rows.filter((p) => PEERS.includes(p.family) && p.alg === alg).map((p) => p.ratio.cpu);
  return ratios.length === 0 ? undefined : Math.max(...ratios);
}

/**
 * The goals of the performance issue. `target` is a number, or a function of the run's rows and
 * the contender's row that returns `{ target, met }` (a target taken from the same run).
 */
const GOALS = [
  // Fresh tokens: 0.97 × the cheapest limit of the same run, and above every peer.
  ...['RS256', 'ES256', 'HS256'].map((alg) =>
    cpuGoal(
      `JWT ${alg}, distinct tokens: ≥ 0.97 × the cheapest limit and above every peer`,
      'pool',
      isAuthlayerJwt(alg),
      (rows, r) => {
        const limit = cheapestLimit(rows, alg);
        const peer = bestPeer(rows, alg);
        if (limit === undefined) return { target: null, met: null };
        const target = 0.97 * limit;
        return { target, met: r.ratio.cpu >= target && (peer === undefined || r.ratio.cpu > peer) };
      },
    ),
  ),
  // Cache hits and API keys, with and without `auth.access` and a 50-entry table.
  ...['RS256', 'ES256', 'HS256'].map((alg) =>
    cpuGoal(`JWT ${alg}, one token reused (cache hit)`, 'one', isAuthlayerJwt(alg), 0.95),
  ),
  cpuGoal('JWT RS256 cache hit, auth.access with 50 entries', 'one', byId('authlayer-jwt-rs256-pem-access50'), 0.95),
  cpuGoal('API key, one key', 'one', byId('authlayer-api-key'), 0.95),
  cpuGoal('API key, one key, auth.access with 50 entries', 'one', byId('authlayer-api-key-access50'), 0.95),
  cpuGoal('API key, 10 000 keys, requests over all', 'one', byId('authlayer-api-key-10k'), 0.95),
  cpuGoal('API key, 10 000 keys, auth.access with 50 entries', 'one', byId('authlayer-api-key-10k-access50'), 0.95),
  cpuGoal('API key, checksummed', 'one', byId('authlayer-api-key-checksummed'), 0.95),
  // The configuration people deploy: every feature on at once, against bare Express.
  cpuGoal(
    'Production config, API key: access 50 entries + rate_limit (memory, a client limit) + revocation.store',
    'one',
    byId('authlayer-prod-api-key'),
    0.9,
  ),
  cpuGoal(
    'Production config, JWT RS256 cache hit: access 50 entries + rate_limit (memory, a client limit) + revocation.store',
    'one',
    byId('authlayer-prod-jwt-rs256'),
    0.9,
  ),
  // The same on Fastify, against bare Fastify: no target in the issue, shown for reading.
  cpuGoal(
    'Production config on Fastify, API key (no target; ×bare Fastify)',
    'one',
    byId('authlayer-fastify-prod-api-key'),
    null,
  ),
  cpuGoal(
    'Production config on Fastify, JWT RS256 cache hit (no target; ×bare Fastify)',
    'one',
    byId('authlayer-fastify-prod-jwt-rs256'),
    null,
  ),
  // Express, head to head with fast-jwt (its cache on) in every cell.
  ...['one', 'pool'].flatMap((workload) =>
    ['RS256', 'ES256', 'HS256'].map((alg) =>
      aheadGoal(
        `Express JWT ${alg}, ${WORKLOAD_WORDS[workload]}: ahead of fast-jwt (cache)`,
        workload,
        jwtId('authlayer-jwt', alg),
        `fast-jwt-${alg.toLowerCase()}`,
        'fast-jwt',
      ),
    ),
  ),
  // Fastify, head to head with @fastify/jwt (fast-jwt's cache on) in every cell, ×bare Fastify.
  ...['one', 'pool'].flatMap((workload) =>
    ['RS256', 'ES256', 'HS256'].map((alg) =>
      aheadGoal(
        `Fastify JWT ${alg}, ${WORKLOAD_WORDS[workload]}: @authlayer/fastify ahead of @fastify/jwt (cache)`,
        workload,
        jwtId('authlayer-fastify-jwt', alg),
        `fastify-jwt-${alg.toLowerCase()}`,
        '@fastify/jwt',
      ),
    ),
  ),
  ...['RS256', 'ES256', 'HS256'].map((alg) => ({
    text: `RSS after the distinct-token run, MiB above bare (${alg})`,
    workload: 'pool',
    match: isAuthlayerJwt(alg),
    target: 20,
    metric: 'rssOverBare',
  })),
  // The same after a full collection: the snapshot above moves by tens of MiB between rounds.
  ...['RS256', 'ES256', 'HS256'].map((alg) => ({
    text: `RSS after the distinct-token run and a full collection, MiB above bare (${alg})`,
    workload: 'pool',
    match: isAuthlayerJwt(alg),
    target: 20,
    metric: 'settledRssOverBare',
  })),
];

/** Each feature against the same workload without it: within 0.02 of its CPU ratio. */
const FEATURES = [
  ['auth.access, 50 entries (API key)', 'authlayer-api-key-access50', 'authlayer-api-key'],
  ['auth.access, 50 entries (10 000 keys)', 'authlayer-api-key-10k-access50', 'authlayer-api-key-10k'],
  ['auth.access, 50 entries (JWT RS256 cache hit)', 'authlayer-jwt-rs256-pem-access50', 'authlayer-jwt-rs256-pem'],
  ['format: checksummed', 'authlayer-api-key-checksummed', 'authlayer-api-key'],
  // Against rate_limit without the client's own limit: the feature is the per-client limit.
  ['a client with its own requests_per_minute (memory)', 'authlayer-api-key-limits', 'authlayer-api-key-ratelimit'],
  ['revocation.store, empty list (API key)', 'authlayer-api-key-revocation', 'authlayer-api-key'],
  [
    'revocation.store, empty list (JWT RS256 cache hit)',
    'authlayer-jwt-rs256-pem-revocation',
    'authlayer-jwt-rs256-pem',
  ],
];
const FEATURE_BUDGET = 0.02;

/** The fast path against jose behind the same middleware, per algorithm (distinct tokens). */
const FAST_PATH_PAIRS = [
  ['RS256', 'authlayer-jwt-rs256-pem', 'authlayer-jwt-rs256-pem-jose'],
  ['ES256', 'authlayer-jwt-es256-pem', 'authlayer-jwt-es256-pem-jose'],
  ['HS256', 'authlayer-jwt-hs256-secret', 'authlayer-jwt-hs256-secret-jose'],
];

/**
 * The production configuration against its mode alone, in the same workload and run: what the
 * features cost together (access 50 entries, rate_limit with a client limit, revocation.store).
 */
const PRODUCTION_PAIRS = [
  ['Express, API key', 'one', 'authlayer-prod-api-key', 'authlayer-api-key'],
  ['Express, JWT RS256, one token reused', 'one', 'authlayer-prod-jwt-rs256', 'authlayer-jwt-rs256-pem'],
  ['Express, JWT RS256, distinct tokens', 'pool', 'authlayer-prod-jwt-rs256', 'authlayer-jwt-rs256-pem'],
  ['Fastify, API key', 'one', 'authlayer-fastify-prod-api-key', 'authlayer-fastify-api-key'],
  [
    'Fastify, JWT RS256, one token reused',
    'one',
    'authlayer-fastify-prod-jwt-rs256',
    'authlayer-fastify-jwt-rs256-pem',
  ],
  [
    'Fastify, JWT RS256, distinct tokens',
    'pool',
    'authlayer-fastify-prod-jwt-rs256',
    'authlayer-fastify-jwt-rs256-pem',
  ],
];

function goalsTable(summary, jwtAvailable) {
  const lines = [
    '| goal | authlayer contender | measured | target | met | peers in the same run: fast-jwt / jose / oauth2-jwt-bearer / express-jwt | limits: node:crypto / WebCrypto / node:crypto on the pool | floor: req.auth handed over, no check |',
    '|---|---|--:|--:|:-:|---|--:|--:|',
  ];
  for (const goal of GOALS) {
    const cpu = goal.metric === 'cpu';
    const show = (r) => (r === undefined ? '—' : cpu ? r2(r.ratio.cpu) : f(r[goal.metric], 1));
    const rows = summary[goal.workload] ?? [];
    const mine = rows.filter(goal.match);
    if (mine.length === 0) {
      const why =
        jwtAvailable || goal.text.startsWith('API key') ? 'not measured' : 'not measured: @authlayer/jwt not installed';
      lines.push(`| ${goal.text} | — | ${why} | | — | | | |`);
      continue;
    }
    for (const r of mine) {
      const value = cpu ? r.ratio.cpu : r[goal.metric];
      let target = goal.target;
      let met;
      let shown;
      if (typeof goal.target === 'function') ({ target, met, shown } = goal.target(rows, r));
      else met = target === null || !Number.isFinite(value) ? null : cpu ? value >= target : value <= target;
      const shownTarget = shown ?? (target === null ? '' : cpu ? `≥ ${r2(target)}` : `≤ ${target}`);
      // Peers, limits and the floor were paired with bare Express: a Fastify row is read against
      // @fastify/jwt alone (paired with bare Fastify, as it is).
      const express = r.framework !== 'fastify';
      const peers =
        r.alg === null
          ? ''
          : express
            ? PEERS.map((family) => show(rows.find((p) => p.family === family && p.alg === r.alg))).join(' / ')
            : `@fastify/jwt ${show(rows.find((p) => p.family === FASTIFY_PEER && p.alg === r.alg))}`;
      const limits =
        cpu && r.alg !== null && express
          ? LIMITS.map((family) => show(rows.find((p) => p.family === family && p.alg === r.alg))).join(' / ')
          : '';
      // The API key and cache-hit goals are read against what handing over an identity costs.
      const floor = cpu && express && goal.workload === 'one' ? show(rows.find((p) => p.family === 'floor')) : '';
      lines.push(
        `| ${goal.text} | ${r.label}${r.alg ? ` ${r.alg}` : ''} | ${show(r)} | ${shownTarget} | ${met === null ? '—' : met ? 'yes' : '**no**'} | ${peers} | ${limits} | ${floor} |`,
      );
    }
  }
  lines.push('', '| feature | with | without | cost | within 0.02 |', '|---|--:|--:|--:|:-:|');
  const one = summary.one ?? [];
  for (const [text, withId, withoutId] of FEATURES) {
    const withRow = one.find(byId(withId));
    const withoutRow = one.find(byId(withoutId));
    if (withRow === undefined || withoutRow === undefined) {
      lines.push(`| ${text} | — | — | not measured | — |`);
      continue;
    }
    const cost = withoutRow.ratio.cpu - withRow.ratio.cpu;
    lines.push(
      `| ${text} | ${r2(withRow.ratio.cpu)} | ${r2(withoutRow.ratio.cpu)} | ${r2(cost)} | ${cost <= FEATURE_BUDGET ? 'yes' : '**no**'} |`,
    );
  }
  lines.push('', '| distinct tokens | fast path | jose only | fast path ahead by |', '|---|--:|--:|--:|');
  const pool = summary.pool ?? [];
  for (const [alg, fastId, joseId] of FAST_PATH_PAIRS) {
    const fast = pool.find(byId(fastId));
    const jose = pool.find(byId(joseId));
    if (fast === undefined || jose === undefined) lines.push(`| ${alg} | — | — | not measured |`);
    else
      lines.push(`| ${alg} | ${r2(fast.ratio.cpu)} | ${r2(jose.ratio.cpu)} | ${r2(fast.ratio.cpu - jose.ratio.cpu)} |`);
  }
  lines.push(
    '',
    '| production configuration (×bare of its framework) | with every feature | the mode alone | the features together cost |',
    '|---|--:|--:|--:|',
  );
  for (const [text, workload, prodId, aloneId] of PRODUCTION_PAIRS) {
    const rows = summary[workload] ?? [];
    const prod = rows.find(byId(prodId));
    const alone = rows.find(byId(aloneId));
    if (prod === undefined) lines.push(`| ${text} | not measured | | |`);
    else
      lines.push(
        `| ${text} | ${r2(prod.ratio.cpu)} | ${alone === undefined ? 'not measured' : r2(alone.ratio.cpu)} | ${alone === undefined ? '—' : r2(alone.ratio.cpu - prod.ratio.cpu)} |`,
      );
  }
  return lines.join('\n');
}

/** The micro-benchmark's table. */
export function microTable(micro) {
  const lines = ['| algorithm | verifier | µs/op | ops/s | CPU µs/op | × node:crypto |', '|---|---|--:|--:|--:|--:|'];
  for (const row of micro.rows) {
    lines.push(
      `| ${row.alg} | ${row.name} | ${f(row.microsPerOp, 2)} | ${f(row.opsPerSecond, 0)} | ${f(row.cpuMicrosPerOp, 2)} | ${r2(row.vsLimit)} |`,
    );
  }
  return lines.join('\n');
}

/** The whole results file. Headings start at level 2 below one title line. */
export function renderMarkdown(summary, meta, micro) {
  const o = meta.options;
  const parts = [
    '# authlayer benchmark results',
    '',
    `${meta.date} · ${meta.cpu}, ${meta.cores} CPUs · Node.js ${meta.node} · Linux ${meta.kernel} · ${meta.pinned} · ` +
      `${o.quick ? '**quick mode**, ' : ''}${o.rounds} round(s) × ${o.duration} s per contender and workload (+${o.warmup} s warm-up), ` +
      `${o.connections} connections · load average ${meta.loadavg.before.map((x) => x.toFixed(2)).join(' ')} before, ` +
      `${meta.loadavg.after.map((x) => x.toFixed(2)).join(' ')} after · ${meta.minutes.toFixed(1)} min`,
    '',
    `Every measurement pairs a fresh contender server with a fresh bare server of its framework on the same core, loaded in turn in ${o.slice} s slices ` +
      '(bare, contender, contender, bare, …): an Express contender with bare Express 5, a Fastify contender (@authlayer/fastify, @fastify/jwt) with bare Fastify 5, ' +
      "so a Fastify ratio is against bare Fastify and the bare Fastify row summarises only the Fastify contenders' twins (the bare Express row, only the Express ones'). " +
      'Ratios are taken within the pair and read "1.00 = as good as bare, higher is better"; ' +
      'the cells are medians over rounds. "×bare range" is the lowest and highest CPU ratio of the rounds; on the bare row, the spread of bare\'s own ' +
      "CPU per request over the run, which shows how much the machine's speed moved. " +
      `Samples whose server was busy less than ${MIN_BUSY * 100} % of the time (starved by other load) are left out when their contender has others.`,
  ];
  // Before the run only: at its end the load average counts the bench's own two processes.
  if (meta.loadavg.before[0] > QUIET_LOAD) {
    parts.push(
      '',
      '> **Not a quiet machine** (1-minute load average above 1.5 when the run started): other processes shared the cores, so these figures are noise.',
    );
  }
  if (!meta.jwtAvailable) parts.push('', '> authlayer jwt contenders skipped: @authlayer/jwt not installed');
  else parts.push('', `@authlayer/jwt: ${meta.jwtSource}.`);
  for (const workload of Object.keys(summary)) {
    const title = workload === 'pool' ? WORKLOAD_TITLE.pool(o.pool) : WORKLOAD_TITLE.one;
    parts.push('', `## ${title}`, '', table(summary[workload], workload));
  }
  parts.push('', '## Goals (server CPU per request ×bare, same run)', '', goalsTable(summary, meta.jwtAvailable));
  if (micro !== null) {
    parts.push(
      '',
      '## The verification step alone (micro-benchmark, one core, distinct tokens unless said)',
      '',
      microTable(micro),
    );
    if (micro.notes.length > 0) parts.push('', ...micro.notes.map((n) => `- ${n}`));
  }
  const notes = [];
  for (const fail of meta.failures)
    notes.push(`- FAILED: round ${fail.round}, ${fail.workload}, ${fail.id}: ${fail.message}`);
  notes.push(
    `- The loopback JWKS server was fetched ${meta.jwksHits} time(s) in the whole run (one fresh server process per measurement).`,
  );
  parts.push('', '## Notes', '', ...notes, '');
  return parts.join('\n');
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/** Replaces the README's section between the markers with the results (title dropped, headings one level down). */
export function replaceReadmeSection(readme, markdown) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return readme;
  const body = markdown
    .split('\n')
    .slice(1)
    .map((line) => (line.startsWith('## ') ? `#${line}` : line))
    .join('\n')
    .trim();
  return `${readme.slice(0, start + START.length)}\n${body}\n${readme.slice(end)}`;
}
