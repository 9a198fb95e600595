// A user's own test suite, outside the workspace, with every package from its packed tarball: the
// complete test that packages/testkit/README.md shows (run as written with `node --test`), and the
// same suite in OAuth2 mode against @authlayer/oauth2 and the testkit's introspection endpoint.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packPublicPackages, REPO_ROOT } from '../scripts/pack.mjs';
import { createOutsideApp } from './support/outside-app.js';

const run = promisify(execFile);
const README = readFileSync(join(REPO_ROOT, 'packages', 'testkit', 'README.md'), 'utf8');
/** The README's first js block: the complete user test. */
const USER_TEST = /```js\n([\s\S]*?)```/.exec(README)?.[1] ?? '';
/** The same suite in OAuth2 mode, as the README says to write it. */
const OAUTH2_TEST = USER_TEST.replace("idp.config('jwt', mine)", "idp.config('oauth2', mine)")
  .replaceAll('await idp.signToken(', 'idp.issueOpaqueToken(')
  .replace("mode: 'jwt', jwt:", "mode: 'oauth2', oauth2:");

let work: string;
let app: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'authlayer-outside-testkit-'));
  const destination = join(work, 'tarballs');
  mkdirSync(destination);
  const tarballs = Object.fromEntries(packPublicPackages(destination).map((pkg) => [pkg.name, pkg.tarball]));
  const names = ['core', 'engine', 'express', 'jwt', 'oauth2', 'sender-constraint', 'testkit'].map(
    (name) => tarballs[`@authlayer/${name}`] as string,
  );
  app = join(work, 'app');
  await createOutsideApp(app, [...names, 'supertest@^7'], 'auth:\n  mode: jwt\n');
  writeFileSync(join(app, 'jwt.test.mjs'), USER_TEST);
  writeFileSync(join(app, 'oauth2.test.mjs'), OAUTH2_TEST);
  // Packing and an npm install: minutes at load 16 on 2 cores. A safety net only.
}, 900_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe("the testkit README's user test, from the packed tarballs, outside the workspace", () => {
  it('is a whole test file with the three tests', () => {
    expect(USER_TEST).toContain("from '@authlayer/testkit'");
    expect(OAUTH2_TEST).toContain("idp.config('oauth2', mine)");
    expect(OAUTH2_TEST).not.toContain('signToken');
  });

  it.each(['jwt.test.mjs', 'oauth2.test.mjs'])('%s passes with node --test', async (file) => {
    const { stdout } = await run(process.execPath, ['--test', '--test-reporter=tap', file], { cwd: app });
    expect(stdout.toString()).toMatch(/# pass 3\n/);
    expect(stdout.toString()).toMatch(/# fail 0\n/);
  });
});
