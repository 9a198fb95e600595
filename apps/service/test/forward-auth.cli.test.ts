import { describe, expect, it } from '@jest/globals';
import { startService, writeConfig } from './cli.js';

// The built service as `pnpm start` runs it, with forward_auth.listen: /forward-auth on its own
// listener, none on the public one, and both closed by SIGTERM.

describe('forward_auth.listen', () => {
  it('serves /forward-auth on its own listener only, and stops it with the service', async () => {
    const config = writeConfig(
      [
        'auth: { mode: api_key }',
        'access: { "GET /public/*path": public }',
        'forward_auth: { enabled: true, proxy: nginx, listen: "127.0.0.1:0" }',
      ].join('\n'),
    );
    const service = await startService(['--config', config], { SERVICE_API_KEY: 'k-0123456789abcdef' });
    try {
      const line = await service.waitForLine(/forward_auth\.listen: \/forward-auth at /);
      const sidecar = /at (http:\/\/127\.0\.0\.1:\d+\/forward-auth)/.exec(line)![1]!;
      const ask = (url: string, uri: string) => fetch(url, { headers: { 'X-Original-URI': uri } });
      expect((await ask(sidecar, '/public/x')).status).toBe(200);
      expect((await ask(sidecar, '/private')).status).toBe(401);
      expect((await ask(sidecar, '/public/../private')).status).toBe(400);
      // The public listener has no /forward-auth: the table's default asks for a credential.
      expect((await ask(`${service.url}/forward-auth`, '/public/x')).status).toBe(401);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});
