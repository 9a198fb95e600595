import { describe, expect, it } from '@jest/globals';
import { headerValues, soleHeaderValue } from '../src/header-values.js';

describe('headerValues', () => {
  it('reads every value of a header from rawHeaders, any case, in order', () => {
    const rawHeaders = ['Host', 'h', 'X-Key', 'a', 'x-key', 'b', 'X-KEY', ''];
    expect(headerValues({ headers: { 'x-key': 'a' }, rawHeaders }, 'X-Key')).toEqual(['a', 'b']);
  });

  it('sees a header past the first 1000 that headers would have dropped', () => {
    const rawHeaders = Array.from({ length: 2000 }, (_, i) => (i % 2 === 0 ? `x-${i}` : 'v'));
    rawHeaders.push('Authorization', 'Bearer late');
    expect(headerValues({ headers: {}, rawHeaders }, 'authorization')).toEqual(['Bearer late']);
  });

  it.each<[string, string | string[] | undefined, string[]]>([
    ['a string', 'a', ['a']],
    ['an array', ['a', '', 'b'], ['a', 'b']],
    ['an empty string', '', []],
    ['nothing', undefined, []],
  ])('falls back to headers without rawHeaders: %s', (_name, value, expected) => {
    expect(headerValues({ headers: { 'x-key': value } }, 'X-Key')).toEqual(expected);
  });

  it('ignores what Object.prototype has', () => {
    expect(headerValues({ headers: {} }, 'constructor')).toEqual([]);
  });
});

describe('headerValues: which raw names match', () => {
  // The rule is `rawName.toLowerCase() === name.toLowerCase()`, also where lower-casing changes a
  // string's length (U+0130 İ becomes i + U+0307) or maps a non-ASCII letter to ASCII (U+212A K).
  const NAMES = ['X-Key', 'x-key', 'X-KEY', 'X-Keys', 'X-Ke', 'x-\u212Aey', 'X-\u0130d', 'x-i\u0307d', 'x-id', 'X-ID'];
  const rawHeaders = NAMES.flatMap((name, i) => [name, `v${i}`]);
  const reference = (name: string) =>
    NAMES.flatMap((raw, i) => (raw.toLowerCase() === name.toLowerCase() ? [`v${i}`] : []));

  it.each(['X-Key', 'x-id', 'X-I\u0307D', 'X-\u0130D', 'x-keys', 'x-k'])('%s', (name) => {
    expect(headerValues({ headers: {}, rawHeaders }, name)).toEqual(reference(name));
  });

  it('finds U+0130 (a name that grows when lower-cased) where toLowerCase does', () => {
    expect(headerValues({ headers: {}, rawHeaders: ['X-\u0130d', 'v'] }, 'x-i\u0307d')).toEqual(['v']);
  });
});

describe('soleHeaderValue', () => {
  it.each<[string, string[], string | null]>([
    ['one value', ['Host', 'h', 'X-Key', 'a'], 'a'],
    ['none', ['Host', 'h'], ''],
    ['only empty values', ['X-Key', '', 'x-key', ''], ''],
    ['one value among empty ones', ['X-Key', '', 'x-key', 'b', 'X-KEY', ''], 'b'],
    ['several values', ['X-Key', 'a', 'Host', 'h', 'x-key', 'b'], null],
    ['a lone name at the end (no value)', ['Host', 'h', 'X-Key'], ''],
  ])('from rawHeaders: %s', (_name, rawHeaders, expected) => {
    expect(soleHeaderValue({ headers: {}, rawHeaders }, 'X-Key')).toBe(expected);
  });

  it.each<[string, string | string[] | undefined, string | null]>([
    ['a string', 'a', 'a'],
    ['an array of one non-empty value', ['', 'a'], 'a'],
    ['an array of several', ['a', 'b'], null],
    ['an empty string', '', ''],
    ['nothing', undefined, ''],
  ])('falls back to headers without rawHeaders: %s', (_name, value, expected) => {
    expect(soleHeaderValue({ headers: { 'x-key': value } }, 'X-Key')).toBe(expected);
  });

  it('agrees with headerValues on every name of a mixed request', () => {
    const rawHeaders = ['A', '1', 'a', '2', 'B', '', 'C', '3', 'x-\u212Aey', '4'];
    for (const name of ['a', 'B', 'c', 'X-KEY', 'd']) {
      const values = headerValues({ headers: {}, rawHeaders }, name);
      const expected = values.length > 1 ? null : (values[0] ?? '');
      expect(soleHeaderValue({ headers: {}, rawHeaders }, name)).toBe(expected);
    }
  });

  it('ignores what Object.prototype has', () => {
    expect(soleHeaderValue({ headers: {} }, 'constructor')).toBe('');
  });
});
