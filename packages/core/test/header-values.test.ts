import { describe, expect, it } from '@jest/globals';
import { headerValues } from '../src/header-values.js';

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
