// Independent versions: in a throw-away copy of the repository, a changeset that touches one
// package bumps that package (and what changesets decides for its dependents) and writes changelogs.
import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { publicPackages, REPO_ROOT } from '../scripts/pack.mjs';

const CHANGESET_BIN = join(REPO_ROOT, 'node_modules', '@changesets', 'cli', 'bin.js');
interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}
const PACKAGES = publicPackages().map(({ name, dir }) => ({ name, folder: dir.slice(REPO_ROOT.length + 1) }));
let copy: string | undefined;

/** Copies the files git knows of (tracked and new, not ignored) and links node_modules. */
function copyRepository(): string {
  const target = mkdtempSync(join(tmpdir(), 'authlayer-release-'));
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(REPO_ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    cpSync(join(REPO_ROOT, file), join(target, file));
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(target, 'node_modules'), 'dir');
  // Only the changeset of the test counts: pending ones of the branch are set aside.
  for (const file of readdirSync(join(target, '.changeset')).filter(
    (name) => name.endsWith('.md') && name !== 'README.md',
  )) {
    rmSync(join(target, '.changeset', file));
  }
  return target;
}

function releaseWith(changeset: string): Map<string, { manifest: Manifest; changelog: string | null }> {
  copy = copyRepository();
  writeFileSync(join(copy, '.changeset', 'e2e-release-check.md'), changeset);
  execFileSync(process.execPath, [CHANGESET_BIN, 'version'], { cwd: copy, encoding: 'utf8', stdio: 'pipe' });
  expect(existsSync(join(copy, '.changeset', 'e2e-release-check.md'))).toBe(false);
  return new Map(
    PACKAGES.map(({ name, folder }) => {
      const manifest = JSON.parse(readFileSync(join(copy!, folder, 'package.json'), 'utf8')) as Manifest;
      const changelogPath = join(copy!, folder, 'CHANGELOG.md');
      return [name, { manifest, changelog: existsSync(changelogPath) ? readFileSync(changelogPath, 'utf8') : null }];
    }),
  );
}

const versionNow = (name: string) => publicPackages().find((pkg) => pkg.name === name)!.version;
const patched = (version: string) => version.replace(/\d+$/, (patch) => String(Number(patch) + 1));

afterEach(() => {
  if (copy !== undefined) rmSync(copy, { recursive: true, force: true });
  copy = undefined;
});

describe('changeset version', () => {
  it('bumps only @authlayer/api-key for a changeset that touches only it, with a changelog', () => {
    const result = releaseWith(
      '---\n"@authlayer/api-key": patch\n---\n\nCompare keys of any length in constant time.\n',
    );
    for (const [name, { manifest, changelog }] of result) {
      if (name === '@authlayer/api-key') {
        expect(manifest.version).toBe(patched(versionNow(name)));
        expect(changelog).toContain(`## ${manifest.version}`);
        expect(changelog).toContain('Compare keys of any length in constant time.');
      } else {
        // express names api-key only as an optional peer with a wide range, so it stays put.
        expect({ name, version: manifest.version, changelog }).toEqual({
          name,
          version: versionNow(name),
          changelog: null,
        });
      }
    }
  });

  it('a minor release of core patches every package that depends on it (workspace:^ becomes the new ^ on publish)', () => {
    const result = releaseWith('---\n"@authlayer/core": minor\n---\n\nA new core feature.\n');
    const core = result.get('@authlayer/core')!;
    expect(core.manifest.version).toMatch(/^0\.\d+\.0$/);
    expect(core.changelog).toContain('A new core feature.');
    for (const [name, { manifest, changelog }] of result) {
      const range = manifest.dependencies?.['@authlayer/core'];
      if (name === '@authlayer/core' || range === undefined) continue;
      expect({ name, version: manifest.version, range }).toEqual({
        name,
        version: patched(versionNow(name)),
        range: 'workspace:^',
      });
      expect(changelog).toContain(`@authlayer/core@${core.manifest.version}`);
    }
  });
});
