import { beforeAll, describe, expect, it } from '@jest/globals';
import { createSigningKey, type SigningKey } from '@authlayer/testkit';
import { readToken } from '../src/read-token.js';
import { failure, staticHandler } from './fixtures.js';

const TOKEN = 'aaa.bbb.ccc';

describe('readToken', () => {
  it.each([
    ['the cookie, when there is no Authorization header', { cookie: `at=${TOKEN}` }, { kind: 'token', token: TOKEN }],
    [
      'among other cookies, the first of the name',
      { cookie: `theme=dark; at=${TOKEN} ; at=other` },
      { kind: 'token', token: TOKEN },
    ],
    ['a quoted value (RFC 6265 §4.1.1)', { cookie: `at="${TOKEN}"` }, { kind: 'token', token: TOKEN }],
    ['several Cookie headers', { cookie: ['theme=dark', `at=${TOKEN}`] }, { kind: 'token', token: TOKEN }],
    ['no cookie of the name', { cookie: `access=${TOKEN}; at` }, { kind: 'absent' }],
    ['no Cookie header', {}, { kind: 'absent' }],
    [
      'an empty Authorization header: the cookie',
      { authorization: '', cookie: `at=${TOKEN}` },
      { kind: 'token', token: TOKEN },
    ],
    ['a value that is not a token', { cookie: 'at=a b;c' }, { kind: 'malformed' }],
    ['an empty value', { cookie: 'at=' }, { kind: 'malformed' }],
  ])('reads %s', (_name, headers, expected) => {
    expect(readToken({ headers }, 'at')).toEqual(expected);
  });

  it('lets the Authorization header win, whatever its scheme', () => {
    expect(readToken({ headers: { authorization: 'Bearer x.y.z', cookie: `at=${TOKEN}` } }, 'at')).toEqual({
      kind: 'token',
      token: 'x.y.z',
    });
    expect(readToken({ headers: { authorization: 'Basic dTpw', cookie: `at=${TOKEN}` } }, 'at')).toEqual({
      kind: 'absent',
    });
    expect(readToken({ headers: { authorization: 'Bearer', cookie: `at=${TOKEN}` } }, 'at')).toEqual({
      kind: 'malformed',
    });
  });

  it('never reads a cookie when none is configured', () => {
    expect(readToken({ headers: { cookie: `at=${TOKEN}` } }, null)).toEqual({ kind: 'absent' });
  });
});

describe('cookie: the handler', () => {
  let key: SigningKey;
  beforeAll(async () => {
    key = await createSigningKey('ES256');
  });

  it('accepts a token from the cookie, and prefers the Authorization header', async () => {
    const { handler, token } = await staticHandler(key, { cookie: 'access_token' });
    const good = await token();
    await expect(handler.authenticate({ headers: { cookie: `access_token=${good}` } })).resolves.toMatchObject({
      userId: 'user-1',
    });
    const other = await token({ sub: 'user-2' });
    const both = { authorization: `Bearer ${other}`, cookie: `access_token=${good}` };
    await expect(handler.authenticate({ headers: both })).resolves.toMatchObject({ userId: 'user-2' });
    const badHeader = { authorization: 'Bearer not-a-jwt', cookie: `access_token=${good}` };
    await expect(handler.authenticate({ headers: badHeader })).rejects.toMatchObject(failure('token_malformed'));
    await expect(handler.authenticate({ headers: { cookie: 'other=1' } })).rejects.toMatchObject(
      failure('credentials_missing'),
    );
  });
});
