import { describe, expect, it } from '@jest/globals';
import { redactUrl } from '../src/redact-url.js';

describe('redactUrl', () => {
  it.each([
    ['https://idp.example/jwks', 'https://idp.example/jwks'],
    ['https://u:hunter2@idp.example/jwks', 'https://redacted@idp.example/jwks'],
    ['https://idp.example/jwks?access_token=hunter2&v=2', 'https://idp.example/jwks?access_token=redacted&v=redacted'],
    ['https://idp.example/jwks?hunter2&k=hunter2#frag', 'https://idp.example/jwks?redacted&k=redacted#redacted'],
    ['https://idp.example/jwks?a=1&&b=2', 'https://idp.example/jwks?a=redacted&&b=redacted'],
    ['https://idp.example/cb#access_token=hunter2', 'https://idp.example/cb#redacted'],
    ['https://idp.example/cb?#access_token=hunter2', 'https://idp.example/cb?#redacted'],
    ['not a url hunter2', '<not a URL>'],
  ])('%s → %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
    expect(redactUrl(url)).not.toContain('hunter2');
  });
});
