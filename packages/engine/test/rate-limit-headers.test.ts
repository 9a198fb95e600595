import { afterEach, describe, expect, it } from '@jest/globals';
import type { Engine } from '../src/engine.js';
import { engineAt, judge, KEYS, requestTo } from './support/engine-at.js';

// The IETF RateLimit headers of an API key client with limits of its own (a minute limit, a quota
// per UTC day), as decide answers them: one member per limit, named after its window. The clock is
// pinned at noon UTC, so the day's window has 43 200 s left.

let open: Engine[] = [];
afterEach(async () => {
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});

async function clientWith(
  limits: Record<string, unknown>,
  rateLimit: Record<string, unknown> = { requests_per_minute: 100 },
) {
  const made = await engineAt({
    auth: { mode: 'api_key', api_keys: { keys: [{ name: 'plain', env_var: 'PLAIN_KEY', ...limits }] } },
    rate_limit: rateLimit,
    access: { 'GET /me': 'authenticated' },
  });
  open.push(made.engine);
  const send = async () =>
    (await judge(made.engine.current(), requestTo('GET', '/me', { 'x-api-key': KEYS.plain }))).outcome!;
  return send;
}

describe('RateLimit headers of a client with its own limits', () => {
  it('a minute limit and a daily quota: two members in each header, the minute first', async () => {
    const send = await clientWith({ requests_per_minute: 5, quota: { requests: 2, per: 'day' } });
    expect((await send()).headers).toEqual([
      ['RateLimit-Policy', '"minute";q=5;w=60, "day";q=2;w=86400'],
      ['RateLimit', '"minute";r=4;t=60, "day";r=1;t=43200'],
    ]);
    await send();
    // The third request is over the quota: 429 until midnight UTC, with both limits told.
    const over = await send();
    expect(over).toMatchObject({ pass: false, answer: { status: 429 } });
    expect(over.headers[1]).toEqual(['RateLimit', '"minute";r=2;t=60, "day";r=0;t=43200']);
  });

  it('only a quota and no common minute limit: the day alone', async () => {
    const send = await clientWith({ quota: { requests: 3, per: 'day' } }, { failed_auth_per_minute: 10 });
    expect((await send()).headers).toEqual([
      ['RateLimit-Policy', '"day";q=3;w=86400'],
      ['RateLimit', '"day";r=2;t=43200'],
    ]);
  });
});
