import { describe, expect, it } from '@jest/globals';
import { createNoAuthHandler } from '../src/no-auth-handler.js';
import { emptyContext } from './empty-context.js';

const ANONYMOUS = emptyContext('none');

describe('createNoAuthHandler', () => {
  it('has method "none"', () => {
    expect(createNoAuthHandler().method).toBe('none');
  });

  it.each([
    ['no headers', {}],
    ['an API key', { 'x-api-key': 'anything' }],
    ['a Bearer token', { authorization: 'Bearer abc' }],
  ])('lets a request with %s through as anonymous', async (_name, headers) => {
    await expect(createNoAuthHandler().authenticate({ headers })).resolves.toEqual(ANONYMOUS);
  });

  it('never takes identity from the request', async () => {
    const context = await createNoAuthHandler().authenticate({ headers: { 'x-user-id': 'admin' } });
    expect(context.userId).toBeNull();
    expect(Object.isFrozen(context)).toBe(true);
  });

  it('is frozen', () => {
    const handler = createNoAuthHandler();
    expect(Object.isFrozen(handler)).toBe(true);
    expect(() => {
      (handler as { method: string }).method = 'api_key';
    }).toThrow(TypeError);
  });
});
