import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A PEM certificate and its PEM private key. */
export interface CertificatePair {
  readonly cert: string;
  readonly key: string;
}

/** What a TLS test needs, all made fresh by {@link createTestCertificates}. */
export interface TestCertificates {
  /** The CA that issued `server`, `client` and `otherClient`. */
  readonly ca: CertificatePair;
  /** For `127.0.0.1` and `localhost` (subjectAltName), for an HTTPS listener. */
  readonly server: CertificatePair;
  /** A client certificate (extendedKeyUsage clientAuth). */
  readonly client: CertificatePair;
  /** Another client certificate of the same CA, with its own key. */
  readonly otherClient: CertificatePair;
  /** A self-signed client certificate no configured CA issued. */
  readonly stranger: CertificatePair;
  /** Files of each PEM (`ca.pem`, `server.pem`, `server-key.pem`, ...), for a config; removed by `remove`. */
  readonly dir: string;
  /** Deletes {@link TestCertificates.dir}, at the end of a test. */
  remove(): Promise<void>;
}

/**
 * Makes a CA, a server certificate and client certificates with the `openssl` command (node:crypto
 * can read X.509 certificates but not make them), EC P-256 keys, valid for a day, in a temporary
 * folder.
 *
 * @throws Error when `openssl` is not on the PATH.
 */
export async function createTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'authlayer-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  const newKey = (name: string) =>
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', at(`${name}-key.pem`));
  await newKey('ca');
  await openssl(
    'req',
    '-x509',
    '-new',
    '-key',
    at('ca-key.pem'),
    '-subj',
    '/CN=authlayer test CA',
    '-days',
    '1',
    '-out',
    at('ca.pem'),
  );
  const issue = async (name: string, subject: string, extensions: string) => {
    await newKey(name);
    await openssl('req', '-new', '-key', at(`${name}-key.pem`), '-subj', subject, '-out', at(`${name}.csr`));
    await writeFile(at(`${name}.ext`), extensions);
    await openssl(
      'x509',
      '-req',
      '-in',
      at(`${name}.csr`),
      '-CA',
      at('ca.pem'),
      '-CAkey',
      at('ca-key.pem'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      at(`${name}.ext`),
      '-out',
      at(`${name}.pem`),
    );
  };
  await issue('server', '/CN=localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  await issue('client', '/CN=reporting-job', 'extendedKeyUsage=clientAuth\n');
  await issue('other-client', '/CN=someone-else', 'extendedKeyUsage=clientAuth\n');
  await newKey('stranger');
  await openssl(
    'req',
    '-x509',
    '-new',
    '-key',
    at('stranger-key.pem'),
    '-subj',
    '/CN=stranger',
    '-days',
    '1',
    '-out',
    at('stranger.pem'),
  );
  const pair = async (name: string): Promise<CertificatePair> => ({
    cert: await readFile(at(`${name}.pem`), 'utf8'),
    key: await readFile(at(`${name}-key.pem`), 'utf8'),
  });
  return {
    ca: await pair('ca'),
    server: await pair('server'),
    client: await pair('client'),
    otherClient: await pair('other-client'),
    stranger: await pair('stranger'),
    dir,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
