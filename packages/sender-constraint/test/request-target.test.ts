import { describe, expect, it } from '@jest/globals';
import { normalizeHtu, requestTarget } from '../src/index.js';

describe('normalizeHtu (RFC 3986 §6.2.2–6.2.3)', () => {
  it.each([
    ['HTTPS://API.Example.com:443/b', 'https://api.example.com/b'],
    ['https://h/v1.2/..x/.../b.json', 'https://h/v1.2/..x/.../b.json'],
    ['http://127.0.0.1:80', 'http://127.0.0.1/'],
    ['https://h/%7e%41%2d%2e%5f?q=1#f', 'https://h/~A-._'],
    ['https://h/a%2fb%c3%a9', 'https://h/a%2Fb%C3%A9'],
  ])('%s → %s', (value, normalized) => {
    expect(normalizeHtu(value)).toBe(normalized);
  });

  // Dot segments are not resolved (Express routes a path as the request line gives it): refused.
  it.each([
    '/relative',
    'ftp://h/x',
    'not a url',
    // A URI without an authority (no "//"): no path to look at, and not http(s).
    'urn:example:invoke',
    'https://h/a/../b',
    'https://h/./b',
    'https://h/a/%2E%2e/b',
    'https://h/a/..',
    'https://h/a/.?q',
    'https://h/a\\..\\b',
  ])('refuses %s', (value) => {
    expect(normalizeHtu(value)).toBeNull();
  });
});

describe('requestTarget', () => {
  it('takes the origin of resource.identifier, else the request protocol and host, else the Host header', () => {
    const request = { headers: { host: 'header.example' }, originalUrl: '/invoke?x=1', url: '/ignored' };
    expect(requestTarget(request, 'https://api.example.com/v1')).toBe('https://api.example.com/invoke');
    expect(requestTarget({ ...request, protocol: 'https', host: 'proxy.example:8443' }, null)).toBe(
      'https://proxy.example:8443/invoke',
    );
    expect(requestTarget(request, null)).toBe('http://header.example/invoke');
    expect(requestTarget({ ...request, socket: { encrypted: true } }, null)).toBe('https://header.example/invoke');
    expect(requestTarget({ headers: { host: 'h' }, url: '/node' }, null)).toBe('http://h/node');
  });

  it('is null when the request does not say where it went', () => {
    expect(requestTarget({ headers: {}, url: '/x' }, null)).toBeNull();
    expect(requestTarget({ headers: { host: '' }, url: '/x' }, null)).toBeNull();
    expect(requestTarget({ headers: { host: ['a', 'b'] }, url: '/x' }, null)).toBeNull();
    expect(requestTarget({ headers: { host: 'h' } }, null)).toBeNull();
  });
});
