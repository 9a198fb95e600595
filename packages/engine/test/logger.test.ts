import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig, type AuthHandler } from '@authlayer/core';
import { secretHeaders } from '../src/logger.js';

const STANDARD = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key'];

describe('secretHeaders', () => {
  it("lists a handler's own credential headers beside the standard ones", () => {
    const handler: Pick<AuthHandler, 'credentialHeaders'> = { credentialHeaders: ['X-Signature'] };
    expect(secretHeaders(handler)).toEqual([...STANDARD, 'x-signature']);
  });

  it('lists the standard headers for a handler that carries credentials in none of its own', () => {
    expect(secretHeaders({})).toEqual(STANDARD);
  });

  it("takes the middleware's serving handler and its config together, without repeats", () => {
    const config = parseAuthConfig({ auth: { api_keys: { header: 'X-Partner-Key' } } });
    const auth = { handler: { credentialHeaders: ['x-partner-key', 'x-signature'] }, config };
    expect(secretHeaders(auth)).toEqual([...STANDARD, 'x-partner-key', 'x-signature']);
  });

  it('still takes a config alone, as older callers give it: the configured API key header', () => {
    const config = parseAuthConfig({ auth: { api_keys: { header: 'X-Partner-Key' } } });
    expect(secretHeaders(config)).toEqual([...STANDARD, 'x-partner-key']);
  });
});
