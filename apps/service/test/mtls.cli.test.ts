import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  createDpopKey,
  createTestCertificates,
  OIDC_RESOURCE,
  startOidcProvider,
  startOpaqueTokenProvider,
  type CertificatePair,
  type OidcProvider,
  type OpaqueTokenProvider,
  type TestCertificates,
} from '@authlayer/testkit';
import { request } from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runToExit, startService, writeConfig } from './cli.js';

// RFC 8705 certificate-bound tokens, end to end: the reference service on a real TLS listener
// asking for client certificates (a CA, a client certificate and wrong ones made by openssl), the
// real oidc-provider binding tokens to the client's certificate; and behind a proxy, the
// certificate in the configured header (oauth2 mode: the introspection answer's cnf binds it).
type Service = Awaited<ReturnType<typeof startService>>;
const MISMATCH =
  'Bearer realm="authlayer", error="invalid_token", error_description="the token is not bound to the client certificate"';

let certs: TestCertificates;
let oidc: OidcProvider;
let opaque: OpaqueTokenProvider;
beforeAll(async () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  [certs, oidc, opaque] = await Promise.all([
    createTestCertificates(),
    startOidcProvider('ES256', 'mtls-k1'),
    startOpaqueTokenProvider(),
  ]);
  warn.mockRestore();
});
afterAll(async () => {
  await Promise.all([certs.remove(), oidc.close(), opaque.close()]);
});

/** POST /invoke over HTTPS, trusting the test CA, with the given client certificate (or none). */
function invoke(url: string, token: string, client: CertificatePair | null, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; challenge: string | undefined; body: string }>((resolve, reject) => {
    const req = request(`${url}/invoke`, {
      method: 'POST',
      ca: certs.ca.cert,
      ...(client === null ? {} : { cert: client.cert, key: client.key }),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, challenge: res.headers['www-authenticate'], body }));
    });
    req.on('error', reject);
    req.end('{"query":"q"}');
  });
}

describe('certificate_bound on the HTTPS listener (tls.client_ca_file)', () => {
  let service: Service;
  let bound: string;
  beforeAll(async () => {
    const config = writeConfig(
      [
        'auth:',
        '  mode: jwt',
        '  jwt:',
        `    issuer: ${oidc.issuer}`,
        `    jwks_url: ${oidc.jwksUri}`,
        `    audience: ${OIDC_RESOURCE}`,
        '    algorithms: [ES256]',
        '    certificate_bound: allowed',
        '    dpop: allowed',
        'tls:',
        `  cert_file: ${join(certs.dir, 'server.pem')}`,
        `  key_file: ${join(certs.dir, 'server-key.pem')}`,
        `  client_ca_file: ${join(certs.dir, 'ca.pem')}`,
      ].join('\n'),
    );
    service = await startService(['--config', config]);
    bound = await oidc.obtainBoundToken({ certificate: certs.client.cert });
  });
  afterAll(() => service.stop());

  it('listens on HTTPS', () => {
    expect(service.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('accepts the bound token over a connection with its certificate', async () => {
    const answer = await invoke(service.url, bound, certs.client);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ auth: { method: 'jwt', userId: 'bound-job' } });
  });

  it.each([
    ['another certificate of the same CA', () => certs.otherClient],
    ['a certificate the CA did not issue', () => certs.stranger],
    ['no certificate', () => null],
  ])('refuses it with %s: 401 certificate_mismatch', async (_name, client) => {
    const answer = await invoke(service.url, bound, client());
    // dpop is on too: the DPoP scheme is offered beside the Bearer challenge.
    expect(answer).toMatchObject({
      status: 401,
      challenge: `${MISMATCH}, DPoP realm="authlayer", algs="ES256 RS256 PS256 EdDSA Ed25519"`,
    });
    expect(JSON.parse(answer.body)).toEqual({
      error: 'unauthorized',
      message: 'the token is not bound to the client certificate',
    });
    expect(answer.body).not.toContain(bound);
  });

  it('takes an unbound token without a certificate (allowed)', async () => {
    expect((await invoke(service.url, await oidc.obtainToken(), null)).status).toBe(200);
  });

  it('takes a DPoP-bound token with a proof whose htu is the https URL, and documents both schemes', async () => {
    const key = await createDpopKey();
    const token = await oidc.obtainBoundToken({ dpop: key });
    const proof = await key.proof({ method: 'POST', url: `${service.url}/invoke`, token });
    const answer = await invoke(service.url, token, null, { authorization: `DPoP ${token}`, dpop: proof });
    expect(answer.status).toBe(200);
    // A proof for the http:// URL of the same host and port is not one for this https request.
    const plain = await key.proof({ method: 'POST', url: `${service.url.replace('https:', 'http:')}/invoke`, token });
    const wrong = await invoke(service.url, token, null, { authorization: `DPoP ${token}`, dpop: plain });
    expect(wrong.status).toBe(401);
    expect(wrong.challenge).toContain('error="invalid_dpop_proof"');
    const openapi = await new Promise<string>((resolve, reject) => {
      request(`${service.url}/openapi.json`, { ca: certs.ca.cert }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });
    expect(Object.keys(JSON.parse(openapi).components.securitySchemes)).toEqual(['BearerAuth', 'DPoPAuth']);
  });
});

describe('certificate_bound behind a proxy (tls.client_cert_header), oauth2 mode, required', () => {
  let service: Service;
  beforeAll(async () => {
    const config = writeConfig(
      [
        'auth:',
        '  mode: oauth2',
        '  oauth2:',
        `    introspection_url: ${opaque.introspectionEndpoint}`,
        `    client_id: ${opaque.clients.basic.id}`,
        '    certificate_bound: required',
        'tls:',
        '  client_cert_header: X-Client-Cert',
      ].join('\n'),
    );
    service = await startService(['--config', config], { OAUTH2_CLIENT_SECRET: opaque.clients.basic.secret });
  });
  afterAll(() => service.stop());

  const post = (token: string, certificate?: string) =>
    fetch(`${service.url}/invoke`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(certificate === undefined ? {} : { 'x-client-cert': encodeURIComponent(certificate) }),
      },
      body: '{"query":"q"}',
    });

  it('accepts the bound token with its certificate in the header, refuses another or none', async () => {
    const token = await opaque.obtainBoundToken({ certificate: certs.client.cert });
    expect((await post(token, certs.client.cert)).status).toBe(200);
    for (const certificate of [certs.otherClient.cert, undefined]) {
      const response = await post(token, certificate);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(MISMATCH);
    }
  });

  it('refuses an unbound token even with a certificate (required)', async () => {
    const response = await post(await opaque.obtainToken(), certs.client.cert);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(MISMATCH);
  });
});

describe('tls files', () => {
  it('are read relative to the config file, and --check shows the section and the binding fields of the modes', async () => {
    const config = join(certs.dir, 'relative.yaml');
    writeFileSync(
      config,
      [
        'auth:',
        '  mode: api_key',
        // Kept beside the listed mode: --check shows it as the installed jwt package reads it.
        '  jwt: {}',
        'tls:',
        '  cert_file: server.pem',
        '  key_file: server-key.pem',
        '  client_ca_file: ca.pem',
      ].join('\n'),
    );
    const { code, stdout } = await runToExit(['--check', '--config', config], {
      SERVICE_API_KEY: 'a-key-0123456789abcdef',
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).auth.jwt).toMatchObject({
      dpop: 'off',
      dpop_algorithms: ['ES256', 'RS256', 'PS256', 'EdDSA', 'Ed25519'],
      certificate_bound: 'off',
    });
    expect(JSON.parse(stdout).tls).toEqual({
      cert_file: 'server.pem',
      key_file: 'server-key.pem',
      client_ca_file: 'ca.pem',
      client_cert_header: null,
    });
  });

  it.each([
    [
      ['cert_file: missing.pem', 'key_file: missing-key.pem'],
      /^authlayer: config error: tls\.cert_file: cannot read \S+missing\.pem \(ENOENT\)\n$/,
    ],
    [
      ['cert_file: CERT', 'key_file: OTHER_KEY'],
      /^authlayer: config error: tls\.key_file: cert_file and key_file are not a PEM certificate and its private key\n$/,
    ],
    [
      ['cert_file: CERT', 'key_file: KEY', 'client_ca_file: missing-ca.pem'],
      /^authlayer: config error: tls\.client_ca_file: cannot read \S+missing-ca\.pem \(ENOENT\)\n$/,
    ],
  ])('%j: one line naming the field, exit 1', async (lines, message) => {
    const tls = lines.map(
      (line) =>
        `  ${line
          .replace('CERT', join(certs.dir, 'server.pem'))
          .replace('OTHER_KEY', join(certs.dir, 'client-key.pem'))
          .replace('KEY', join(certs.dir, 'server-key.pem'))}`,
    );
    const config = writeConfig(['auth:', '  mode: api_key', 'tls:', ...tls].join('\n'));
    for (const args of [
      ['--config', config],
      ['--check', '--config', config],
    ]) {
      const { code, stderr } = await runToExit(args, { SERVICE_API_KEY: 'a-key-0123456789abcdef' });
      expect(code).toBe(1);
      expect(stderr).toMatch(message);
    }
  });
});
