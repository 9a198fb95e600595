import { describe, expect, it } from '@jest/globals';
import type { AuthMethod, AuthMode, KnownAuthMode } from '../src/index.js';
import { AUTH_MODES, createAuthContext, isKnownAuthMode } from '../src/index.js';

// Compile-time checks (`tsc --noEmit -p packages/core` reads this file): each alias is `true` only
// when the types are as users rely on them.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const known: Equal<KnownAuthMode, 'api_key' | 'jwt' | 'oauth2'> = true;
// The literals stay in the unions (an editor completes them), beside any mode package's name.
const literals: Equal<
  Extract<AuthMethod, 'api_key' | 'jwt' | 'oauth2' | 'none'>,
  'api_key' | 'jwt' | 'oauth2' | 'none'
> = true;
const modeIsMethod: AuthMode extends AuthMethod ? true : false = true;
const external: 'hmac' extends AuthMethod ? true : false = true;

/** What a user writes: a switch over the known methods, with a default for the others. */
function label(method: AuthMethod): string {
  switch (method) {
    case 'api_key':
      return 'key';
    case 'jwt':
    case 'oauth2':
      return 'token';
    case 'none':
      return 'anonymous';
    default:
      return `mode package ${method}`;
  }
}

describe('AuthMethod and AuthMode, as users type them', () => {
  it('keeps the known modes typed and takes a mode package outside this repository', () => {
    expect([known, literals, modeIsMethod, external]).toEqual([true, true, true, true]);
    const modes: readonly KnownAuthMode[] = AUTH_MODES;
    expect(modes).toEqual(['api_key', 'jwt', 'oauth2']);
    expect(label(createAuthContext({ method: 'hmac' }).method)).toBe('mode package hmac');
    expect(label(createAuthContext({ method: 'jwt' }).method)).toBe('token');
    const mode: AuthMode = 'hmac';
    expect(isKnownAuthMode(mode)).toBe(false);
    expect(isKnownAuthMode('oauth2')).toBe(true);
  });
});
