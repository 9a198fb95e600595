import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createTestCertificates, type TestCertificates } from '@authlayer/testkit';
import { writeFileSync } from 'node:fs';
import { Server as HttpServer } from 'node:http';
import { Server as HttpsServer } from 'node:https';
import { join } from 'node:path';
import { createServer, readTlsOptions } from '../src/tls-server.js';

// The tls section's files, read as a start reads them.
let certs: TestCertificates;
beforeAll(async () => {
  certs = await createTestCertificates();
});
afterAll(() => certs.remove());

const tlsOf = (tls: object) => parseAuthConfig({ auth: {}, tls }).tls;

describe('readTlsOptions', () => {
  it('is null without a tls section or with the proxy header alone (plain HTTP)', async () => {
    expect(await readTlsOptions(null, certs.dir)).toBeNull();
    expect(await readTlsOptions(tlsOf({ client_cert_header: 'X-Client-Cert' }), certs.dir)).toBeNull();
  });

  it('reads the certificate and key (relative to the config folder), and asks for client certificates with a CA', async () => {
    const plain = await readTlsOptions(tlsOf({ cert_file: 'server.pem', key_file: 'server-key.pem' }), certs.dir);
    expect(plain).toEqual({ cert: Buffer.from(certs.server.cert), key: Buffer.from(certs.server.key) });
    const mutual = await readTlsOptions(
      tlsOf({ cert_file: 'server.pem', key_file: join(certs.dir, 'server-key.pem'), client_ca_file: 'ca.pem' }),
      certs.dir,
    );
    expect(mutual).toMatchObject({ ca: Buffer.from(certs.ca.cert), requestCert: true, rejectUnauthorized: false });
    expect(createServer(mutual, () => undefined)).toBeInstanceOf(HttpsServer);
    expect(createServer(null, () => undefined)).toBeInstanceOf(HttpServer);
  });

  it('names the field and the path of a file it cannot read', async () => {
    await expect(
      readTlsOptions(tlsOf({ cert_file: 'nope.pem', key_file: 'server-key.pem' }), certs.dir),
    ).rejects.toThrow(`tls.cert_file: cannot read ${join(certs.dir, 'nope.pem')} (ENOENT)`);
  });

  it('names the field of a file that is not PEM, never its content', async () => {
    writeFileSync(join(certs.dir, 'garbage.pem'), 'SECRET-NOT-A-CERTIFICATE');
    await expect(
      readTlsOptions(
        tlsOf({ cert_file: 'server.pem', key_file: 'server-key.pem', client_ca_file: 'garbage.pem' }),
        certs.dir,
      ),
    ).rejects.toThrow(/^tls\.client_ca_file: is not a PEM certificate list$/);
    await expect(
      readTlsOptions(tlsOf({ cert_file: 'garbage.pem', key_file: 'server-key.pem' }), certs.dir),
    ).rejects.toThrow(/^tls\.key_file: cert_file and key_file are not a PEM certificate and its private key$/);
  });
});
