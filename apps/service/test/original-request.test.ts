import { describe, expect, it } from '@jest/globals';
import { canonicalPathProblem, readOriginalRequest } from '../src/routes/original-request.js';

describe('canonicalPathProblem', () => {
  it('accepts what browsers send for ordinary links, queries not judged', () => {
    for (const uri of [
      '/',
      '/reports/7',
      '/reports/7/',
      '/a-b_c~d.e/f',
      "/x/!$&'()*+,=:@",
      '/caf%C3%A9',
      '/a%20b',
      '/a%25b',
      '/p?next=%2F..%2Fadmin&x=../y;z',
      '/p?',
    ]) {
      expect([uri, canonicalPathProblem(uri)]).toEqual([uri, null]);
    }
  });

  it.each([
    ['reports/7', 'the path does not start with "/"'],
    ['http://host/reports/7', 'the path does not start with "/"'],
    ['*', 'the path does not start with "/"'],
    ['/a/../b', 'the path holds a ".." segment'],
    ['/a/./b', 'the path holds a "." segment'],
    ['/a/..', 'the path holds a ".." segment'],
    ['/.', 'the path holds a "." segment'],
    ['/a/%2e%2e/b', 'it holds a percent-encoded unreserved character'],
    ['/a/%2E/b', 'it holds a percent-encoded unreserved character'],
    ['/%61dmin', 'it holds a percent-encoded unreserved character'],
    ['/a/%7E', 'it holds a percent-encoded unreserved character'],
    ['/a//b', 'the path holds an empty segment ("//")'],
    ['//a', 'the path holds an empty segment ("//")'],
    ['/a\\b', 'the path holds "\\"'],
    ['/a;b', 'the path holds ";"'],
    ['/a%2fb', 'it holds an encoded "/"'],
    ['/a%5Cb', 'it holds an encoded "\\"'],
    ['/a%00', 'it holds "%00"'],
    ['/a%zz', 'it holds an invalid percent-encoding'],
    ['/a%2', 'it holds an invalid percent-encoding'],
    ['/a#b', 'it holds "#"'],
    ['/a?b#c', 'it holds "#"'],
    ['/a b', 'it holds a character that must be percent-encoded'],
    ['/caf\u00c3\u00a9', 'it holds a character that must be percent-encoded'],
    ['/a?b\u0001', 'it holds a character that must be percent-encoded'],
  ])('refuses %j: %s', (uri, problem) => {
    expect(canonicalPathProblem(uri)).toBe(problem);
  });
});

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
});
