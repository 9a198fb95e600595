import { afterEach, describe, expect, it } from '@jest/globals';
import type { Engine } from '../src/engine.js';
import { engineAt } from './support/engine-at.js';

// The RFC 9728 document a generation serves at /.well-known/oauth-protected-resource, as the
// config and the modes make it: the resource's name and documentation, the scopes the table's
// rules need (not the words of public or denied routes), and the binding the JWT mode asks for.

let open: Engine[] = [];
afterEach(async () => {
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});

const jwt = (extra: object = {}) => ({
  issuer: 'https://idp.example/',
  jwks_url: 'https://idp.example/jwks',
  ...extra,
});

async function documentOf(config: Record<string, unknown>) {
  const { engine } = await engineAt(config);
  open.push(engine);
  return engine.current().resourceMetadata()?.document;
}

describe('the protected resource metadata', () => {
  it('names the resource and its documentation; lists the scopes of rules, of any and of MCP keys, without offline_access', async () => {
    const document = await documentOf({
      resource: {
        identifier: 'https://api.example/',
        name: 'Reports API',
        documentation: 'https://api.example/docs',
      },
      mcp: { endpoint: '/mcp' },
      access: {
        'GET /status': 'public',
        '* /admin{/*rest}': 'deny',
        'GET /reports': { scopes: ['reports:read', 'offline_access'] },
        'GET /exports': { any: [{ roles: ['admin'] }, { scopes: ['export'] }] },
        'POST /mcp': 'authenticated',
        'MCP tools/call delete_file': { scopes: ['files:delete'] },
      },
    });
    expect(document).toEqual({
      resource: 'https://api.example/',
      authorization_servers: [],
      scopes_supported: ['reports:read', 'export', 'files:delete'],
      bearer_methods_supported: ['header'],
      resource_name: 'Reports API',
      resource_documentation: 'https://api.example/docs',
    });
  });

  it('JWT with DPoP required and certificate-bound tokens: the algorithms and both bindings', async () => {
    const document = await documentOf({
      auth: { mode: 'jwt', jwt: jwt({ dpop: 'required', dpop_algorithms: ['ES256'], certificate_bound: 'allowed' }) },
      resource: { identifier: 'https://api.example/' },
    });
    expect(document).toMatchObject({
      authorization_servers: ['https://idp.example/'],
      dpop_signing_alg_values_supported: ['ES256'],
      dpop_bound_access_tokens_required: true,
      tls_client_certificate_bound_access_tokens: true,
    });
  });

  it('JWT without a binding: no DPoP or certificate field at all', async () => {
    const document = await documentOf({
      auth: { mode: 'jwt', jwt: jwt() },
      resource: { identifier: 'https://api.example/' },
    });
    expect(Object.keys(document ?? {}).filter((key) => /dpop|certificate/.test(key))).toEqual([]);
  });
});
