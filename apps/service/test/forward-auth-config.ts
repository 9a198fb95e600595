// The config both forward-auth suites run the service with: two clients (one with a role and a
// tenant), a rule, a public and a denied route, a failed-auth limit, and /forward-auth on.
export const KEYS = { reader: 'reader-key-0123456789abcdef', plain: 'plain-key-0123456789abcdef' };
export const env = { READER_KEY: KEYS.reader, PLAIN_KEY: KEYS.plain };

export const CONFIG = {
  auth: {
    mode: 'api_key',
    api_keys: {
      keys: [
        { name: 'reader', env_var: 'READER_KEY', roles: ['reader'], tenant_id: 'acme' },
        { name: 'plain', env_var: 'PLAIN_KEY' },
      ],
    },
  },
  roles: [{ name: 'reader', permissions: ['reports:read'] }],
  access: {
    'GET /reports/:id': { permissions: ['reports:read'] },
    'GET /public/*path': 'public',
    '* /admin{/*path}': 'deny',
  },
  // trust_proxy: 1, as docs/forward-auth.md advises behind its nginx block.
  rate_limit: { failed_auth_per_minute: 3, trust_proxy: 1 },
  forward_auth: { enabled: true },
};
