import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isConfigError } from '@authlayer/core';
import type { Engine } from '../src/engine.js';
import { coversMethod, planWithParams, routePlanOf, unnamedKeysError } from '../src/access/route-plans.js';
import { engineAt } from './support/engine-at.js';

// For a framework that chooses the route itself (Fastify, Hono): the plan of a route, made once per
// route and generation from the entries that name it, and per request only for `tenant_param`.

let engine: Engine;
beforeAll(async () => {
  ({ engine } = await engineAt({
    access: {
      'GET /open': 'public',
      'GET /t/:tenant/items': { tenant_param: 'tenant' },
      'DELETE /reports/:id': 'deny',
      default: 'deny',
    },
  }));
});
afterAll(() => engine.close());

const entriesNamed = (key: string) => () => engine.current().table.entries.filter((entry) => entry.route.key === key);

describe('routePlanOf', () => {
  it("makes a route's plan once per generation, from the entries that name it", () => {
    const generation = engine.current();
    let asked = 0;
    const entries = () => {
      asked += 1;
      return entriesNamed('GET /open')();
    };
    const first = routePlanOf(generation, 'GET /open', entries);
    expect(routePlanOf(generation, 'GET /open', entries)).toBe(first);
    expect(asked).toBe(1);
    expect(first.plan).toMatchObject({ authentication: 'none', denied: false });
    expect(first.tenantEntries).toBeNull();
    expect(first.fallback).toBe('deny');
  });

  it("no route (''): access.default decides, no entry is asked for", () => {
    const made = routePlanOf(engine.current(), '', () => {
      throw new Error('not asked');
    });
    expect(made.entries).toEqual([]);
    expect(made.plan).toMatchObject({ denied: true, deniedBy: 'default' });
  });

  it("tenant_param: the plan of each request carries that request's parameters", () => {
    const made = routePlanOf(engine.current(), 'GET /t/:tenant/items', entriesNamed('GET /t/:tenant/items'));
    expect(made.tenantEntries).toHaveLength(1);
    const plan = planWithParams(made, () => ({ tenant: 'acme' }));
    expect(plan.rules[0]?.params).toEqual({ tenant: 'acme' });
    const plain = routePlanOf(engine.current(), 'DELETE /reports/:id', entriesNamed('DELETE /reports/:id'));
    expect(planWithParams(plain, () => ({ id: '7' }))).toBe(plain.plan);
  });
});

describe('coversMethod and unnamedKeysError', () => {
  it('a key of * covers every method, GET covers HEAD, nothing else covers another', () => {
    expect([coversMethod('*', 'PATCH'), coversMethod('GET', 'HEAD'), coversMethod('GET', 'GET')]).toEqual([
      true,
      true,
      true,
    ]);
    expect([coversMethod('HEAD', 'GET'), coversMethod('POST', 'GET')]).toEqual([false, false]);
  });

  it('names each key (a long one cut at 64 characters) and the framework', () => {
    const long = `GET /${'a'.repeat(80)}`;
    const error = unnamedKeysError(['POST /typo', long], 'Hono app');
    expect(isConfigError(error)).toBe(true);
    expect(error.issues).toEqual([
      { path: 'access.POST /typo', message: 'names no route registered on this Hono app' },
      { path: `access.${long.slice(0, 64)}...`, message: 'names no route registered on this Hono app' },
    ]);
  });
});
