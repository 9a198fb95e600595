import { describe, expect, it } from '@jest/globals';
import { presentedKeyOf, readPresentedKey, type PresentedKey } from '../src/read-presented-key.js';

type Headers = Record<string, string | string[] | undefined>;
const key = (value: string): PresentedKey => ({ kind: 'key', key: value });
const ABSENT: PresentedKey = { kind: 'absent' };
const MALFORMED: PresentedKey = { kind: 'malformed' };

describe('readPresentedKey', () => {
  it.each<[string, Headers, boolean, PresentedKey]>([
    ['the configured header', { 'x-api-key': 'abc' }, true, key('abc')],
    ['the header without Bearer allowed', { 'x-api-key': 'abc' }, false, key('abc')],
    ['Bearer when the header is missing', { authorization: 'Bearer abc' }, true, key('abc')],
    ['Bearer when the header is empty', { 'x-api-key': '', authorization: 'Bearer abc' }, true, key('abc')],
    ['the header first when both are sent', { 'x-api-key': 'head', authorization: 'Bearer bear' }, true, key('head')],
    ['the header over a malformed Bearer', { 'x-api-key': 'head', authorization: 'Bearer a b' }, true, key('head')],
    ['the header value as it is, spaces and all', { 'x-api-key': ' a b ' }, false, key(' a b ')],
    ['nothing without headers', {}, true, ABSENT],
    ['nothing from an empty header', { 'x-api-key': '' }, true, ABSENT],
    ['nothing from an undefined header', { 'x-api-key': undefined }, true, ABSENT],
    ['nothing from Bearer when it is not allowed', { authorization: 'Bearer abc' }, false, ABSENT],
    ['nothing from another scheme', { authorization: 'Basic YTpi' }, true, ABSENT],
    ['nothing from another header', { 'x-api-token': 'abc' }, true, ABSENT],
    ['malformed for a broken Bearer header', { authorization: 'Bearer' }, true, MALFORMED],
    ['malformed for a repeated header', { 'x-api-key': ['a', 'b'] }, true, MALFORMED],
    ['nothing from an empty header list', { 'x-api-key': [] }, true, ABSENT],
    ['nothing from several empty headers', { 'x-api-key': ['', ''] }, true, ABSENT],
    ['Bearer when several headers are empty', { 'x-api-key': ['', ''], authorization: 'Bearer abc' }, true, key('abc')],
  ])('reads %s', (_name, headers, allowBearer, expected) => {
    expect(readPresentedKey({ headers }, 'X-API-Key', allowBearer)).toEqual(expected);
  });

  it.each(['X-Custom-Key', 'x-custom-key', 'X-CUSTOM-KEY'])(
    'finds the header configured as %s in lower case',
    (name) => {
      expect(readPresentedKey({ headers: { 'x-custom-key': 'abc' } }, name, false)).toEqual(key('abc'));
    },
  );

  it('reads only the configured header', () => {
    expect(readPresentedKey({ headers: { 'x-api-key': 'abc' } }, 'X-Custom-Key', false)).toEqual(ABSENT);
  });

  // Node's req.headers inherits from Object.prototype; both are valid, lower-case header names.
  it.each(['constructor', '__proto__'])('does not take the inherited %s for a header', (name) => {
    expect(readPresentedKey({ headers: {} }, name, false)).toEqual(ABSENT);
    expect(readPresentedKey({ headers: { authorization: 'Bearer abc' } }, name, true)).toEqual(key('abc'));
  });

  it('reads a header named like a prototype property when it was sent', () => {
    expect(readPresentedKey({ headers: { constructor: 'abc' } }, 'Constructor', false)).toEqual(key('abc'));
  });
});

describe('readPresentedKey with rawHeaders (a real Node request)', () => {
  const read = (rawHeaders: string[], allowBearer = true) =>
    readPresentedKey({ headers: {}, rawHeaders }, 'X-API-Key', allowBearer);

  it('refuses several API key headers whatever their order, and never guesses one', () => {
    expect(read(['X-API-Key', 'good', 'x-api-key', 'bad'])).toEqual(MALFORMED);
    expect(read(['x-api-key', 'bad', 'X-API-KEY', 'good'])).toEqual(MALFORMED);
  });

  it('refuses several Authorization headers when it falls back to Bearer', () => {
    expect(read(['Authorization', 'Bearer good', 'Authorization', 'Bearer bad'])).toEqual(MALFORMED);
  });

  it('treats one or two empty API key headers alike: no key there, so Bearer answers', () => {
    expect(read(['X-API-Key', '', 'Authorization', 'Bearer abc'])).toEqual(key('abc'));
    expect(read(['X-API-Key', '', 'X-API-Key', '', 'Authorization', 'Bearer abc'])).toEqual(key('abc'));
    expect(read(['X-API-Key', '', 'X-API-Key', 'abc'])).toEqual(key('abc'));
  });
});

describe("presentedKeyOf (the handler's form, no object per request)", () => {
  const cases: [string, string[], boolean][] = [
    ['one key header', ['Host', 'h', 'X-API-Key', 'abc'], false],
    ['no key header', ['Host', 'h'], false],
    ['two key headers', ['x-api-key', 'a', 'X-API-KEY', 'b'], false],
    ['an empty key header, then Bearer', ['X-API-Key', '', 'Authorization', 'Bearer abc'], true],
    ['a broken Bearer header', ['Authorization', 'Bearer a b'], true],
    ['Bearer not allowed', ['Authorization', 'Bearer abc'], false],
  ];

  it.each(cases)('agrees with readPresentedKey: %s', (_name, rawHeaders, allowBearer) => {
    const request = { headers: {}, rawHeaders };
    const read = readPresentedKey(request, 'X-API-Key', allowBearer);
    const now = presentedKeyOf(request, 'x-api-key', allowBearer);
    expect(read.kind === 'key' ? read.key : read).toEqual(now);
  });

  it('gives the key itself, and the shared frozen values for no key', () => {
    const request = (rawHeaders: string[]) => ({ headers: {}, rawHeaders });
    expect(presentedKeyOf(request(['x-api-key', 'abc']), 'x-api-key', false)).toBe('abc');
    const absent = presentedKeyOf(request([]), 'x-api-key', false);
    expect(absent).toBe(presentedKeyOf(request(['Host', 'h']), 'x-api-key', false));
    expect(Object.isFrozen(absent)).toBe(true);
  });
});
