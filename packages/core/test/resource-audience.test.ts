import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';
import { withResourceAudience } from '../src/config/resource-audience.js';

// What `auth.jwt` and `auth.oauth2` (their packages' `jwtOf`, `oauth2Of`) make of the top-level
// `resource`: the identifier as their audience where none is written (RFC 8707), strictly with
// `resource.audience_strict`. Their packages prove it through their sections.

const identifier = 'https://mcp.example.com/mcp';
const resourceOf = (resource?: object) =>
  parseAuthConfig({ auth: {}, ...(resource === undefined ? {} : { resource }) }).resource;

describe('withResourceAudience', () => {
  it('gives the section the identifier where no audience is written, and keeps its own', () => {
    const resource = resourceOf({ identifier });
    expect(withResourceAudience({ audience: null, issuer: 'x' }, resource)).toEqual({
      audience: identifier,
      issuer: 'x',
    });
    expect(withResourceAudience({ audience: 'api' }, resource)).toEqual({ audience: 'api' });
  });

  it('returns the section itself without a resource', () => {
    const section = Object.freeze({ audience: null });
    expect(withResourceAudience(section, null)).toBe(section);
  });

  it('binds each provider the same way, the section too', () => {
    const section = { audience: null, providers: [{ audience: 'own' }, { audience: null }] };
    expect(withResourceAudience(section, resourceOf({ identifier, audience_strict: true }))).toEqual({
      audience: identifier,
      audienceStrict: true,
      providers: [{ audience: 'own' }, { audience: identifier, audienceStrict: true }],
    });
  });

  it('sets audienceStrict only with audience_strict, and only where the audience names the resource', () => {
    expect(withResourceAudience({ audience: null }, resourceOf({ identifier }))).not.toHaveProperty('audienceStrict');
    const strict = resourceOf({ identifier, audience_strict: true });
    expect(withResourceAudience({ audience: 'api://other' }, strict)).toEqual({ audience: 'api://other' });
    // Compared as URIs: the same resource written with another case or the default port.
    expect(withResourceAudience({ audience: 'HTTPS://MCP.example.com:443/mcp' }, strict)).toEqual({
      audience: 'HTTPS://MCP.example.com:443/mcp',
      audienceStrict: true,
    });
  });

  it('leaves the section it was given unchanged', () => {
    const section = Object.freeze({ audience: null, providers: Object.freeze([Object.freeze({ audience: null })]) });
    withResourceAudience(section, resourceOf({ identifier, audience_strict: true }));
    expect(section).toEqual({ audience: null, providers: [{ audience: null }] });
  });
});

describe('withResourceAudience: what it gives back', () => {
  it('is frozen, providers included, as the checked section it extends', () => {
    const resource = { identifier: 'https://api.example', audienceStrict: true } as Parameters<
      typeof withResourceAudience
    >[1];
    const bound = withResourceAudience({ audience: null, providers: [{ audience: null }] }, resource);
    expect(Object.isFrozen(bound)).toBe(true);
    expect(Object.isFrozen(bound.providers)).toBe(true);
    expect(Object.isFrozen(bound.providers[0])).toBe(true);
  });
});
