import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedis, type RedisServer } from '@authlayer/testkit';
import { expectOneLineFailure, runToExit, startService, writeConfig } from './cli.js';

// Configs the reference service refuses, or starts with a warning, because of what it can see:
// one stderr line and a non-zero exit, at a start and with --check alike.
const JWT_KEY = 'a-shared-secret-of-at-least-thirty-two-bytes!';
const SECRET = 'an-introspection-client-secret';

describe('certificate_bound: required without a way to see a client certificate', () => {
  const jwt = [
    'auth:',
    '  mode: jwt',
    '  jwt:',
    '    public_key_env: JWT_KEY',
    '    algorithms: [HS256]',
    '    issuer: https://issuer.example.com',
    '    audience: invoke-api',
    '    certificate_bound: required',
  ].join('\n');
  const oauth2 = [
    'auth:',
    '  mode: oauth2',
    '  oauth2:',
    '    introspection_url: https://idp.example.com/introspect',
    '    client_id: invoke',
    '    client_secret_env: CLIENT_SECRET',
    '    certificate_bound: required',
  ].join('\n');
  const env = { JWT_KEY, CLIENT_SECRET: SECRET };

  it.each([
    ['jwt', jwt],
    ['oauth2', oauth2],
  ])('%s: refuses to start and fails --check, naming the field', async (mode, yaml) => {
    const config = writeConfig(`${yaml}\n`);
    for (const args of [[], ['--check']]) {
      const result = await runToExit(['--config', config, ...args], { ...env, PORT: '0' });
      expectOneLineFailure(
        result,
        `auth.${mode}.certificate_bound: required needs tls.client_ca_file or tls.client_cert_header`,
      );
    }
  });

  it('passes --check with tls.client_cert_header (a proxy sends the certificate)', async () => {
    const config = writeConfig(`${jwt}\ntls:\n  client_cert_header: X-Client-Cert\n`);
    const result = await runToExit(['--config', config, '--check'], env);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  });
});

describe('JWT mode without issuer or audience', () => {
  const OPEN =
    'auth.jwt has no issuer and no audience: tokens from any issuer and for any API signed by its key are accepted; set issuer and audience';
  const yaml = 'auth:\n  mode: jwt\n  jwt:\n    public_key_env: JWT_KEY\n    algorithms: [HS256]\n';

  it('--check exits 0 and shows the warning line', async () => {
    const result = await runToExit(['--config', writeConfig(yaml), '--check'], { JWT_KEY });
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.includes('"warn"'))).toEqual([
      expect.stringContaining(`"msg":"${OPEN}"`),
    ]);
  });

  it('a start logs it once, before it listens', async () => {
    const service = await startService(['--config', writeConfig(yaml)], { JWT_KEY });
    try {
      expect(service.lines.filter((line) => line.includes(OPEN))).toHaveLength(1);
    } finally {
      await service.stop();
    }
  });
});

describe('--check with rate_limit.store on a Redis that answers', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('says nothing of Redis being unreachable (closing its own connection is no outage)', async () => {
    const yaml = `auth:\n  mode: api_key\nrate_limit:\n  failed_auth_per_minute: 20\n  store: ${redis.url}\n`;
    const result = await runToExit(['--config', writeConfig(yaml), '--check'], { SERVICE_API_KEY: JWT_KEY });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  });
});
