import { describe, expect, it } from '@jest/globals';
import { ConfigError, isConfigError } from '../src/config/config-error.js';

describe('ConfigError', () => {
  it('takes one issue and names its path', () => {
    const error = new ConfigError({ path: 'auth.api_keys.header', message: 'must not be empty' });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'ConfigError', path: 'auth.api_keys.header' });
    expect(error.message).toBe('auth.api_keys.header: must not be empty');
    expect(error.issues).toEqual([{ path: 'auth.api_keys.header', message: 'must not be empty' }]);
  });

  it('joins several issues on one line, and its path is the first one', () => {
    const error = new ConfigError([
      { path: 'auth.mode', message: 'must be one of: api_key, jwt' },
      { path: 'auth.jwt.leeway_seconds', message: 'must be 0 to 300' },
    ]);
    expect(error.message).toBe('auth.mode: must be one of: api_key, jwt; auth.jwt.leeway_seconds: must be 0 to 300');
    expect(error.path).toBe('auth.mode');
  });

  it('leaves out an empty path', () => {
    expect(new ConfigError({ path: '', message: 'no key material' }).message).toBe('no key material');
  });

  it('has an empty path and message without issues', () => {
    const error = new ConfigError([]);
    expect(error.path).toBe('');
    expect(error.message).toBe('');
  });

  it('keeps a frozen copy of the issues', () => {
    const issues = [{ path: 'a', message: 'b' }];
    const error = new ConfigError(issues);
    issues.push({ path: 'c', message: 'd' });
    expect(error.issues).toEqual([{ path: 'a', message: 'b' }]);
    expect(Object.isFrozen(error.issues)).toBe(true);
  });
});

describe('isConfigError', () => {
  class ForeignConfigError extends Error {
    override readonly name = 'ConfigError';
    readonly issues = [{ path: 'auth', message: 'x' }];
  }

  it.each([
    ['a ConfigError', new ConfigError({ path: 'a', message: 'b' }), true],
    ['one from another copy of core', new ForeignConfigError('x'), true],
    ['a plain Error', new Error('auth: x'), false],
    ['an Error named ConfigError without issues', Object.assign(new Error('x'), { name: 'ConfigError' }), false],
    ['a look-alike plain object', { name: 'ConfigError', issues: [], message: 'x' }, false],
    ['null', null, false],
    ['a string', 'ConfigError', false],
  ])('is right for %s', (_name, value, expected) => {
    expect(isConfigError(value)).toBe(expected);
  });
});
