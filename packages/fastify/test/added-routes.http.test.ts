import { beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import {
  CALLERS,
  METHODS,
  TARGETS,
  appOf,
  sendAll,
  specOf,
  type Outcome,
  type Shape,
  type Spec,
  type TrailingSlash,
} from './support/added-routes.js';

// A route Fastify adds for a registered one (the HEAD route of a GET route, the slash variant of a
// prefix root under `prefixTrailingSlash`) is under the keys that name the registered route. Each
// app: a plugin with a prefix, one route per method at its root, every key admin-only, default
// `authenticated` (a route no key names would let `plain` in). Every method × spelling × caller,
// on a real socket and through `inject`: no handler runs for a caller its rule refuses, and the
// admin reaches everything Fastify serves without the plugin (the same app, no authlayer).

const SHAPES: Shape[] = (['both', 'slash', 'no-slash'] as TrailingSlash[]).flatMap((prefixTrailingSlash) =>
  [true, false].flatMap((exposeHeadRoutes) =>
    (['/api', '/api/'] as const).flatMap((prefix) =>
      (['methods', 'star'] as const).map((keys) => ({ prefix, prefixTrailingSlash, exposeHeadRoutes, keys })),
    ),
  ),
);
const nameOf = (shape: Shape) =>
  `prefix ${shape.prefix}, prefixTrailingSlash ${shape.prefixTrailingSlash}, exposeHeadRoutes ${String(shape.exposeHeadRoutes)}, keys ${shape.keys}`;

/** Each spec's outcomes through `inject`, from one child process (the plugin from dist). */
async function injectAll(specs: readonly Spec[]): Promise<Outcome[][]> {
  const fixture = fileURLToPath(new URL('./fixtures/added-routes-inject.mjs', import.meta.url));
  const child = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify({ specs, methods: METHODS, targets: TARGETS, callers: CALLERS }));
  const [out, [code]] = await Promise.all([text(child.stdout), once(child, 'exit')]);
  expect(code).toBe(0);
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Outcome[]);
}

const pair = (outcome: Outcome) => `${outcome.method} ${outcome.target}`;

/** The judgement of one app's outcomes against what Fastify serves without the plugin. */
function expectGuarded(outcomes: readonly Outcome[], unguarded: readonly Outcome[]) {
  const served = unguarded.filter((each) => each.caller === 'admin' && each.ran.length > 0).map(pair);
  // The control: the router serves something at the prefix root, HEAD included when it adds one.
  expect(served.length).toBeGreaterThan(0);
  const leaks = outcomes.filter((each) => each.ran.some((caller) => caller !== 'admin'));
  expect(leaks).toEqual([]);
  expect(outcomes.filter((each) => each.caller === 'admin' && each.ran.length > 0).map(pair)).toEqual(served);
  for (const each of outcomes.filter((outcome) => served.includes(pair(outcome)))) {
    expect({ at: pair(each), caller: each.caller, status: each.status }).toEqual({
      at: pair(each),
      caller: each.caller,
      status: { anonymous: 401, plain: 403, admin: 200 }[each.caller],
    });
  }
}

let injected: Outcome[][];
beforeAll(async () => {
  injected = await injectAll(SHAPES.flatMap((shape) => [specOf(shape), specOf(shape, false)]));
});

describe.each(SHAPES.map((shape, index) => [nameOf(shape), shape, index] as const))(
  'routes Fastify adds, %s',
  (_name, shape, index) => {
    it('on a socket: no handler runs for a caller its rule refuses; the admin reaches what Fastify serves', async () => {
      expectGuarded(await sendAll(specOf(shape)), await sendAll(specOf(shape, false)));
    });

    it('through inject: the same', () => {
      expectGuarded(injected[index * 2]!, injected[index * 2 + 1]!);
    });

    it('every key names a route: ready() resolves and unmatchedRules() is empty', async () => {
      const { app } = await appOf(specOf(shape));
      expect(app.authlayer.unmatchedRules()).toEqual([]);
      await app.close();
    });
  },
);

describe('the keys of a prefix root under prefixTrailingSlash both', () => {
  const shape: Shape = { prefix: '/api', prefixTrailingSlash: 'both', exposeHeadRoutes: true, keys: 'methods' };

  it('HEAD /api/ (the HEAD route Fastify adds at the slash variant) is under GET /api', async () => {
    const outcomes = await sendAll(specOf(shape));
    const headSlash = outcomes.filter((each) => each.method === 'HEAD' && each.target === '/api/');
    expect(headSlash.map(({ caller, status, ran }) => ({ caller, status, ran }))).toEqual([
      { caller: 'anonymous', status: 401, ran: [] },
      { caller: 'plain', status: 403, ran: [] },
      { caller: 'admin', status: 200, ran: ['admin'] },
    ]);
  });

  it('a key at the slash variant names no registered GET route: ready() fails naming it', async () => {
    const spec = specOf(shape);
    const config = spec.config as { access: object };
    await expect(
      appOf({ ...spec, config: { ...config, access: { ...config.access, 'GET /api/': 'public' } } }),
    ).rejects.toThrow('access.GET /api/: names no route');
  });
});
