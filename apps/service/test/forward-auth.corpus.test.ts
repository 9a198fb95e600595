import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@authlayer/core';
import { createApp, type ServiceApp } from '../src/app.js';
import { freePort, startNginx, type RunningNginx } from './nginx.js';
import { rawRequest } from './raw-http.js';

// The hostile probe's lab, as docs/forward-auth.md sets it up: the service with the page's config,
// Debian's nginx with the page's block (only its ports changed), in front of a static folder that
// holds a public file, a file the table denies to everyone and a report that needs a role. Both
// variants of the page: `root` in place of `proxy_pass`, and `proxy_pass` to an application that
// serves the same folder (a second nginx: it resolves paths as a static server does). Every
// spelling of a protected path, with headers a client may forge, sent raw: none may reach a file
// the caller's credential does not open.

const DOC = readFileSync(new URL('../../../docs/forward-auth.md', import.meta.url), 'utf8');
const block = (marker: string, lang: string) =>
  new RegExp(`<!-- apps/service/test/${marker}[^\\n]*\\n\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(DOC)?.[1];
const YAML = block('forward-auth\\.corpus\\.test\\.ts runs', 'yaml');
const NGINX = block('forward-auth\\.nginx\\.test\\.ts runs', 'nginx');

const KEYS = { billing: 'billing-key-0123456789abcdef', intern: 'intern-key-0123456789abcdef' };
const SECRET = 'ADMIN-SECRET-FILE';
const REPORT = 'REPORT-SEVEN-FILE';
const PUBLIC = 'PUBLIC';

let service: ServiceApp;
let sidecar: Server;
let folder: string;
const nginxes: RunningNginx[] = [];
const ports = { root: 0, proxy: 0 };

beforeAll(async () => {
  expect(YAML).toBeDefined();
  expect(NGINX).toBeDefined();
  folder = mkdtempSync(join(tmpdir(), 'authlayer-static-'));
  chmodSync(folder, 0o755);
  for (const [path, text] of [
    ['public/x.txt', PUBLIC],
    ['admin/secret.txt', SECRET],
    ['admin/index.html', SECRET],
    ['reports/7', REPORT],
  ] as const) {
    mkdirSync(join(folder, path, '..'), { recursive: true, mode: 0o755 });
    writeFileSync(join(folder, path), text, { mode: 0o644 });
  }
  writeFileSync(join(folder, 'service.yaml'), YAML!);
  service = await createApp(await loadConfig(join(folder, 'service.yaml')), {
    env: { BILLING_API_KEY: KEYS.billing, INTERN_API_KEY: KEYS.intern },
    logger: createCaptureLogger(),
  });
  // The page's config serves /forward-auth on forward_auth.listen: that app, on a free port.
  expect(service.forwardAuth).not.toBeNull();
  sidecar = createServer(service.forwardAuth!).listen(0, '127.0.0.1');
  await once(sidecar, 'listening');
  const servicePort = (sidecar.address() as AddressInfo).port;
  const application = await freePort();
  [ports.root, ports.proxy] = [await freePort(), await freePort()];
  const server = (port: number, upstream: string) =>
    NGINX!
      .replace('listen 8000;', `listen 127.0.0.1:${port};`)
      .replace('127.0.0.1:9091', `127.0.0.1:${servicePort}`)
      .replace('proxy_pass http://127.0.0.1:9000;', upstream);
  nginxes.push(
    await startNginx(() =>
      [
        // The application of the proxy_pass variant: a static server of the same folder.
        `server { listen 127.0.0.1:${application}; root ${folder}; }`,
        server(ports.proxy, `proxy_pass http://127.0.0.1:${application};`),
      ].join('\n'),
    ),
  );
  // The root variant: `root` where `proxy_pass` is, as the page says. A second nginx, since both
  // variants name the same upstream block.
  nginxes.push(await startNginx(() => server(ports.root, `root ${folder};`)));
  // A safety net for a hung nginx, not a speed bound.
}, 300_000);

afterAll(async () => {
  for (const nginx of nginxes) await nginx.stop();
  sidecar?.close();
  await service?.shutdown();
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

// Spellings of `..`, `.` and `/` that some layer between the client and the file decodes or resolves.
const DOTDOT = ['..', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '.%2E', '%2E.', '..%00', '%2e%2e%00'];
const DOT = ['.', '%2e', '%2E'];
const SLASH = ['/', '//', '%2f', '%2F', '\\', '%5c', '%5C', '/;/', ';/'];

/** Every spelling of `/<target>` the corpus tries (target without its leading slash). */
function spellings(target: string): string[] {
  const [first, ...rest] = target.split('/');
  const tail = rest.join('/');
  const out = new Set<string>();
  for (const dotdot of DOTDOT) {
    for (const slash of SLASH) {
      out.add(`/public${slash}${dotdot}${slash}${target}`);
    }
    out.add(`/public/x.txt/../${dotdot}/${target}`);
    out.add(`/PUBLIC/${dotdot}/${target}`);
    out.add(`/public/${dotdot}/${first}/./${tail}`);
  }
  for (const dot of DOT) {
    out.add(`/${dot}/${target}`);
    out.add(`/${first}/${dot}/${tail}`);
    out.add(`/public/${dot}/../${target}`);
  }
  for (const slash of SLASH) {
    out.add(`/${slash}${target}`.replace('//', '/'));
    out.add(`/${first}${slash}${tail}`);
    out.add(`${slash}${target}`);
  }
  out.add(`//${target}`);
  out.add(`///${target}`);
  out.add(`/${first}//${tail}`);
  out.add(`/${target}/`);
  out.add(`/${target}//`);
  out.add(`/${target};x=1`);
  out.add(`/${first};/${tail}`);
  out.add(`/${target}%00`);
  out.add(`/${target}%00.txt`);
  out.add(`/public/x.txt%00/../../${target}`);
  out.add(`/${target}%`);
  out.add(`/${target}%zz`);
  out.add(`/${target}%2`);
  // Encoded unreserved characters: each letter of the first segment, lower- and upper-case hex.
  for (let i = 0; i < first!.length; i += 1) {
    const hex = first!.charCodeAt(i).toString(16);
    out.add(`/${first!.slice(0, i)}%${hex}${first!.slice(i + 1)}/${tail}`);
    out.add(`/${first!.slice(0, i)}%${hex.toUpperCase()}${first!.slice(i + 1)}/${tail}`);
  }
  out.add(`/${first}/${tail.replace('.', '%2e')}`);
  out.add(`/%${first!.toUpperCase().charCodeAt(0).toString(16)}${first!.toUpperCase().slice(1)}/${tail}`);
  // Case.
  out.add(`/${first!.toUpperCase()}/${tail}`);
  out.add(`/${first![0]!.toUpperCase()}${first!.slice(1)}/${tail}`);
  out.add(`/${target.toUpperCase()}`);
  // Fragments and queries that try to hide the path.
  out.add(`/public/x.txt#/../../${target}`);
  out.add(`/${target}#`);
  out.add(`/${target}#x`);
  out.add(`/public/x.txt?/../../${target}`);
  out.add(`/${target}?`);
  out.add(`/${target}?a=/public/x.txt`);
  // Absolute-form, with and without dot segments.
  for (const scheme of ['http', 'HTTP', 'https']) {
    out.add(`${scheme}://127.0.0.1/${target}`);
    out.add(`${scheme}://127.0.0.1/public/../${target}`);
    out.add(`${scheme}://127.0.0.1/public/%2e%2e/${target}`);
  }
  return [...out];
}

// Headers of both styles that a client may add, naming a public path or another method.
const FORGED: Record<string, string>[] = [
  {},
  { 'X-Forwarded-Uri': '/public/x.txt' },
  { 'X-Forwarded-Uri': '/public/x.txt', 'X-Forwarded-Method': 'GET' },
  { 'X-Original-URI': '/public/x.txt' },
  { 'X-Original-URI': '/public/x.txt', 'X-Original-Method': 'GET', 'X-Forwarded-Method': 'POST' },
  { 'X-Forwarded-Prefix': '/public', 'X-Forwarded-Host': 'elsewhere', 'X-Rewrite-URL': '/public/x.txt' },
];

/** The credentials that must not open `protected`, and its marker text. */
const CASES = [
  { target: 'admin/secret.txt', marker: SECRET, keys: [null, KEYS.intern, KEYS.billing] },
  { target: 'admin/', marker: SECRET, keys: [null, KEYS.intern, KEYS.billing] },
  { target: 'reports/7', marker: REPORT, keys: [null, KEYS.intern] },
];

describe.each(['root', 'proxy'] as const)('forward auth behind the nginx of the docs (%s variant)', (variant) => {
  const get = (target: string, headers: Record<string, string> = {}, method = 'GET') =>
    rawRequest(ports[variant], method, target, headers);

  it('serves what the table allows: the controls that show the corpus can see a leak', async () => {
    expect((await get('/public/x.txt')).body).toBe(PUBLIC);
    expect((await get('/reports/7', { 'X-API-Key': KEYS.billing })).body).toBe(REPORT);
    expect((await get('/reports/7', { 'X-API-Key': KEYS.intern })).status).toBe(403);
    for (const target of ['/admin', '/admin/', '/admin/secret.txt']) {
      expect((await get(target, { 'X-API-Key': KEYS.billing })).status).toBe(403);
    }
  });

  it('no spelling of a protected path, and no forged header, reaches a file the credential does not open', async () => {
    const leaks: string[] = [];
    let tried = 0;
    for (const { target, marker, keys } of CASES) {
      const corpus = spellings(target);
      expect(corpus.length).toBeGreaterThan(100);
      for (const path of corpus) {
        for (const key of keys) {
          // Every forged header set without a key; the first three with one.
          for (const forged of key === null ? FORGED : FORGED.slice(0, 3)) {
            const headers = key === null ? forged : { ...forged, 'X-API-Key': key };
            // A HEAD has no body: its Content-Length, the protected file's, is the leak.
            for (const method of forged === FORGED[0] ? ['GET', 'HEAD'] : ['GET']) {
              const answer = await get(path, headers, method);
              tried += 1;
              const length = /\r\ncontent-length: (\d+)/i.exec(answer.head)?.[1];
              if (answer.body.includes(marker) || (answer.status === 200 && Number(length) === marker.length)) {
                leaks.push(`${method} ${path} key=${key} ${JSON.stringify(forged)} → ${answer.status}`);
              }
            }
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(1000);
    expect(leaks).toEqual([]);
    // A bound for a hung nginx only: thousands of requests on a loaded 2-core machine.
  }, 900_000);

  it('a non-canonical spelling of a public path is refused too (400), not judged as another path', async () => {
    expect((await get('/public/./x.txt')).status).toBe(400);
    expect((await get('/public//x.txt')).status).toBe(400);
    expect((await get('/public/%78.txt')).status).toBe(400);
  });
});
