import { describe, expect, it } from '@jest/globals';
import { readOriginalRequest } from '../src/routes/original-request.js';

describe('readOriginalRequest', () => {
  it('takes the method from the style read, else the forward request own', () => {
    expect(readOriginalRequest({ 'x-original-uri': '/a' }, 'DELETE', null)).toEqual({ method: 'DELETE', uri: '/a' });
    expect(readOriginalRequest({ 'x-forwarded-uri': '/a', 'x-forwarded-method': 'post' }, 'GET', null)).toEqual({
      method: 'POST',
      uri: '/a',
    });
    expect(readOriginalRequest({ 'x-original-uri': '/a', 'x-original-method': 'G E T' }, 'GET', 'nginx')).toBe(
      'the original method is not a method',
    );
    expect(readOriginalRequest({ 'x-original-uri': '/a', 'x-original-method': '' }, 'GET', 'nginx')).toBe(
      'the original method is not a method',
    );
  });

  it('refuses a URI over 8 KiB', () => {
    expect(readOriginalRequest({ 'x-original-uri': `/${'a'.repeat(8192)}` }, 'GET', 'nginx')).toBe(
      'the original URI is too long',
    );
  });

  it('refuses a URI that is not canonical, naming the problem (the check the engine gives auth.upgrade too)', () => {
    expect(readOriginalRequest({ 'x-original-uri': '/public/%2e%2e/admin' }, 'GET', 'nginx')).toBe(
      'the original URI is not in canonical form: it holds a percent-encoded unreserved character',
    );
    expect(readOriginalRequest({ 'x-forwarded-uri': 'http://x/admin' }, 'GET', 'traefik')).toBe(
      'the original URI is not in canonical form: the path does not start with "/"',
    );
  });
});
