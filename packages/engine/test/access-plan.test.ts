import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Engine } from '../src/engine.js';
import { engineAt } from './support/engine-at.js';

// What the table asks of an OPTIONS request: a CORS preflight is judged by the rule of the method
// it announces when that rule lets anyone through; else an OPTIONS key, else every key of the path.

let engine: Engine;
beforeAll(async () => {
  ({ engine } = await engineAt({
    access: {
      'GET /open': 'public',
      'GET /reports/:id': { roles: ['admin'] },
      'DELETE /reports/:id': 'deny',
      'OPTIONS /own': 'public',
      'GET /own': 'authenticated',
    },
  }));
});
afterAll(() => engine.close());

const preflight = (method: string) => ({
  method: 'OPTIONS',
  headers: { origin: 'https://app.example', 'access-control-request-method': method },
});
const plain = { method: 'OPTIONS', headers: {} };
const planOf = (path: string, request: { method: string; headers: Record<string, string> }) =>
  engine.current().plan('OPTIONS', path, request);

describe('the plan of an OPTIONS request', () => {
  it("a preflight takes the announced method's rule when it lets anyone through", () => {
    expect(planOf('/open', preflight('get'))).toMatchObject({ authentication: 'none', rules: [] });
  });

  it("a preflight to a route whose rule asks for a caller: every key of the path, as a plain OPTIONS'", () => {
    const plan = planOf('/reports/7', preflight('GET'));
    expect(plan).toMatchObject({ denied: true, deniedBy: 'DELETE /reports/:id' });
    expect(plan.rules.map((rule) => rule.key)).toEqual(['GET /reports/:id']);
    expect(planOf('/reports/7', plain)).toEqual(plan);
  });

  it('an OPTIONS key of the path decides before the other methods', () => {
    expect(planOf('/own', plain)).toMatchObject({ authentication: 'none', denied: false });
    expect(planOf('/own', preflight('GET'))).toMatchObject({ authentication: 'none' });
  });

  it('a path no key names: access.default', () => {
    expect(planOf('/nowhere', plain)).toMatchObject({ authentication: 'required', askedBy: 'default' });
  });
});
