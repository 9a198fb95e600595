import { describe, expect, it } from '@jest/globals';
import { canonicalTargetProblem, nonCanonicalTargetAnswer } from '../src/request/canonical-target.js';

// What browsers send for ordinary links; the query is not judged.
const CANONICAL = [
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
  '/.well-known/x',
  '/a/..b/c.',
];

describe('canonicalTargetProblem', () => {
  it('accepts canonical targets', () => {
    for (const target of CANONICAL) {
      expect([target, canonicalTargetProblem(target)]).toEqual([target, null]);
    }
  });

  it('accepts only targets whose path WHATWG URL parsing leaves as it is (the `ws` README routing)', () => {
    for (const target of CANONICAL) {
      const path = target.split('?', 1)[0];
      expect([target, new URL(target, 'wss://base.url').pathname]).toEqual([target, path]);
    }
  });

  it.each([
    ['reports/7', 'the path does not start with "/"'],
    ['http://host/reports/7', 'the path does not start with "/"'],
    ['*', 'the path does not start with "/"'],
    ['', 'the path does not start with "/"'],
    ['/a/../b', 'the path holds a ".." segment'],
    ['/a/./b', 'the path holds a "." segment'],
    ['/a/..', 'the path holds a ".." segment'],
    ['/.', 'the path holds a "." segment'],
    ['/a/%2e%2e/b', 'it holds a percent-encoded unreserved character'],
    ['/a/.%2E/b', 'it holds a percent-encoded unreserved character'],
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
  ])('refuses %j: %s', (target, problem) => {
    expect(canonicalTargetProblem(target)).toBe(problem);
  });
});

describe('nonCanonicalTargetAnswer', () => {
  it('is null for a canonical target', () => {
    expect(nonCanonicalTargetAnswer('/ws/ops?x=../y')).toBeNull();
  });

  it('is a 400 invalid_request naming the problem, never the target', () => {
    const target = '/ws/public/%2e%2e/secret-name';
    expect(nonCanonicalTargetAnswer(target)).toEqual({
      status: 400,
      headers: [],
      code: 'invalid_request',
      message: 'the request target is not in canonical form: it holds a percent-encoded unreserved character',
    });
    expect(JSON.stringify(nonCanonicalTargetAnswer(target))).not.toContain('secret-name');
  });
});
