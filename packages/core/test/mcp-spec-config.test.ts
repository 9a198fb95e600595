import { describe, expect, it } from '@jest/globals';
import { OTHER_AUDIENCE, audienceRefusal, sameAudience } from '../src/audience.js';
import { createClaimsMapper } from '../src/claims-mapper.js';
import { DEFAULTS } from '../src/config/defaults.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';
import { withResourceAudience } from '../src/config/resource-audience.js';
import { grantedScopes } from '../src/config/sections/scopes.js';

// MCP authorization as the specification reads on 2026-07-28: scope hierarchies, the challenge
// and batch switches, audiences compared as URIs, and `scp` read without configuration.

const parse = (extra: object) => parseAuthConfig({ auth: {}, ...extra });
/** A token mode's section (`auth.jwt`, `auth.oauth2`) as its package binds it to the resource. */
const bound = (config: ReturnType<typeof parse>, audience: string | null = null) =>
  withResourceAudience<{ audience: string | null; audienceStrict?: boolean }>({ audience }, config.resource);

describe('scopes.implies', () => {
  it('is closed transitively at load, and grants the implied scopes only', () => {
    const config = parse({ scopes: { implies: { admin: ['files:write'], 'files:write': ['files:read'] } } });
    expect(config.scopes?.implies).toEqual({ admin: ['files:write', 'files:read'], 'files:write': ['files:read'] });
    expect([...grantedScopes(['admin'], config.scopes!.implies)].sort()).toEqual([
      'admin',
      'files:read',
      'files:write',
    ]);
    expect([...grantedScopes(['files:read'], config.scopes!.implies)]).toEqual(['files:read']);
    expect(parse({}).scopes).toBeUndefined();
  });

  it('fails start-up on a cycle, naming it', () => {
    expect(() => parse({ scopes: { implies: { a: ['b'], b: ['c'], c: ['a'] } } })).toThrow(
      'scopes.implies.a: is part of a cycle: a implies b implies c implies a',
    );
    expect(() => parse({ scopes: { implies: { a: ['a'] } } })).toThrow('is part of a cycle: a implies a');
  });

  it('fails start-up on a name that is no scope-token, naming it', () => {
    expect(() => parse({ scopes: { implies: { admin: ['files write'] } } })).toThrow(
      'scopes.implies.admin[0]: must be a scope',
    );
    expect(() => parse({ scopes: { implies: { 'a"b': ['c'] } } })).toThrow('must be a scope');
  });
});

describe('mcp.challenge_scopes, mcp.batches, resource.audience_strict and serve_metadata', () => {
  it('default to the specification: required scopes, batches refused, not strict, metadata served', () => {
    const config = parse({
      mcp: { endpoint: '/mcp' },
      resource: { identifier: 'https://a.example/mcp' },
      access: { 'POST /mcp': 'authenticated' },
    });
    expect(config.mcp).toMatchObject({ challengeScopes: 'required', batches: 'refuse' });
    expect(config.resource).toMatchObject({ audienceStrict: false, serveMetadata: true });
    expect(bound(config).audienceStrict).toBeUndefined();
  });

  it('keep round 4 on request, and refuse other values', () => {
    const config = parse({
      mcp: { endpoint: '/mcp', challenge_scopes: 'token_and_required', batches: 'judge' },
      resource: { identifier: 'https://a.example/mcp', audience_strict: true, serve_metadata: false },
      access: { 'POST /mcp': 'authenticated' },
    });
    expect(config.mcp).toMatchObject({ challengeScopes: 'token_and_required', batches: 'judge' });
    expect([bound(config).audienceStrict, bound(config).audience, config.resource?.serveMetadata]).toEqual([
      true,
      'https://a.example/mcp',
      false,
    ]);
    expect(() => parse({ mcp: { endpoint: '/mcp', batches: 'allow' } })).toThrow(
      'mcp.batches: must be one of: refuse, judge',
    );
  });

  it('leaves audience_strict off for a section whose own audience is another', () => {
    const config = parse({ resource: { identifier: 'https://a.example/mcp', audience_strict: true } });
    expect(bound(config, 'api://other').audienceStrict).toBeUndefined();
    // The same resource written otherwise (RFC 3986 normalisation) is the resource's audience.
    expect(bound(config, 'HTTPS://A.example:443/mcp').audienceStrict).toBe(true);
  });
});

describe('audiences compared as URIs', () => {
  it.each([
    ['https://mcp.example.com/mcp/', true],
    ['HTTPS://MCP.Example.COM/mcp', true],
    ['https://mcp.example.com:443/mcp', true],
    ['https://mcp.example.com/mcp?x', false],
    ['https://mcp.example.com/mcp/tools', false],
    ['https://mcp.example.com/MCP', false],
    ['https://mcp.example.com:8443/mcp', false],
    ['http://mcp.example.com/mcp', false],
    ['https://mcp.example.com/mcp//', false],
  ])('%s names https://mcp.example.com/mcp: %s', (aud, same) => {
    expect(sameAudience(aud, 'https://mcp.example.com/mcp')).toBe(same);
  });

  it('takes an empty path as /, and compares what is no http(s) URL exactly', () => {
    expect(sameAudience('https://api.example.com', 'https://api.example.com/')).toBe(true);
    expect(sameAudience('api://Default', 'api://default')).toBe(false);
    expect(sameAudience('https://user@api.example.com/', 'https://api.example.com/')).toBe(false);
  });

  it('refuses a token also for another audience only when strict', () => {
    const aud = ['https://mcp.example.com/mcp/', 'https://other.example.com/'];
    expect(audienceRefusal(aud, 'https://mcp.example.com/mcp')).toBeNull();
    const strict = audienceRefusal(aud, 'https://mcp.example.com/mcp', true);
    expect([strict?.reason, strict?.message]).toEqual(['audience_mismatch', OTHER_AUDIENCE]);
    expect(strict?.challenge).toContain(`error="invalid_token", error_description="${OTHER_AUDIENCE}"`);
    expect(audienceRefusal(['https://mcp.example.com/mcp'], 'https://mcp.example.com/mcp', true)).toBeNull();
    expect(audienceRefusal(undefined, 'https://mcp.example.com/mcp')?.message).toBe(
      'the token audience is not accepted',
    );
  });
});

describe('scopes from scp', () => {
  // readScp: a resource server for MCP (`resource` or `mcp` configured); a plain service maps only `scope`.
  const map = createClaimsMapper('jwt', { ...DEFAULTS.claims }, [], { readScp: true });

  it('reads scp only where the service is a resource server for MCP', () => {
    expect(createClaimsMapper('jwt', { ...DEFAULTS.claims }, [])({ sub: 'u', scp: ['b'] }).scopes).toEqual([]);
  });

  it('reads scp (a list or a string) when the token has no scope', () => {
    expect(map({ sub: 'u', scp: ['files.read', 'mcp:tools'] }).scopes).toEqual(['files.read', 'mcp:tools']);
    expect(map({ sub: 'u', scp: 'files.read mcp:tools' }).scopes).toEqual(['files.read', 'mcp:tools']);
    expect(map({ sub: 'u', scope: 'a', scp: ['b'] }).scopes).toEqual(['a']);
  });

  it('reads only a configured claims.scopes path', () => {
    const own = createClaimsMapper('jwt', { ...DEFAULTS.claims, scopes: 'permissions_granted' }, [], { readScp: true });
    expect(own({ sub: 'u', scp: ['b'] }).scopes).toEqual([]);
  });
});
