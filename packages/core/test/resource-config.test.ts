import { describe, expect, it } from '@jest/globals';
import { withResourceMetadata } from '../src/challenge.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';
import { resourceMetadataUrl } from '../src/config/sections/resource.js';

describe('resource (RFC 9728)', () => {
  it('is absent by default, and keeps what is written with the rest null', () => {
    expect(parseAuthConfig({ auth: {} }).resource).toBeNull();
    expect(parseAuthConfig({ auth: {}, resource: { identifier: 'https://api.example.com' } }).resource).toEqual({
      identifier: 'https://api.example.com',
      name: null,
      documentation: null,
      audienceStrict: false,
      serveMetadata: true,
    });
  });

  it('puts the well-known path between the host and the path of the identifier (§3.1)', () => {
    expect(resourceMetadataUrl('https://api.example.com')).toBe(
      'https://api.example.com/.well-known/oauth-protected-resource',
    );
    expect(resourceMetadataUrl('https://api.example.com/')).toBe(
      'https://api.example.com/.well-known/oauth-protected-resource',
    );
    expect(resourceMetadataUrl('https://api.example.com:8443/v1/')).toBe(
      'https://api.example.com:8443/.well-known/oauth-protected-resource/v1',
    );
  });

  it('adds resource_metadata to each Bearer and DPoP challenge, and to nothing else', () => {
    const url = 'https://api.example.com/.well-known/oauth-protected-resource';
    expect(withResourceMetadata('Bearer realm="a", error="invalid_token", ApiKey realm="a", header="X"', url)).toBe(
      `Bearer realm="a", error="invalid_token", resource_metadata="${url}", ApiKey realm="a", header="X"`,
    );
    expect(withResourceMetadata('Bearer', url)).toBe(`Bearer resource_metadata="${url}"`);
    expect(withResourceMetadata('DPoP algs="ES256"', url)).toBe(`DPoP algs="ES256", resource_metadata="${url}"`);
    expect(withResourceMetadata('ApiKey realm="a", header="X"', url)).toBe('ApiKey realm="a", header="X"');
  });
});
