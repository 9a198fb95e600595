#!/usr/bin/env node
// `pnpm check:packages`: packs every public package and checks each tarball as a user gets it:
// no `workspace:` ranges, every `exports`/`types` target present, a README, no tests, no source
// maps pointing nowhere, then publint (strict) and arethetypeswrong (ESM-only profile).
// Prints one line per package with its size; exits 1 when anything is wrong.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packPublicPackages } from './pack.mjs';

const BIN = resolve(fileURLToPath(new URL('../node_modules/.bin', import.meta.url)));
const TEST_FILE = /(^|\/)(test|tests|__tests__|__mocks__)\/|\.(test|spec)\.[cm]?[jt]sx?$|(^|\/)(jest|vitest)\.config\./;
const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'];

/** Every file under `dir`, as paths relative to it with `/`. */
function listFiles(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((path) => statSync(join(dir, path)).isFile())
    .map((path) => path.split('\\').join('/'));
}

/** The string leaves of an `exports` map (conditions and subpaths). */
function exportTargets(value) {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(exportTargets);
}

/** What is wrong with an unpacked tarball, as sentences. */
export function inspectUnpacked(root) {
  const problems = [];
  const files = listFiles(root);
  const present = new Set(files);
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

  for (const field of DEPENDENCY_FIELDS) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (String(range).startsWith('workspace:')) problems.push(`${field}.${dep} is still "${range}"`);
    }
  }
  if (manifest.type !== 'module') problems.push('"type" is not "module" (the packages are ESM-only)');
  const targets = [...exportTargets(manifest.exports), manifest.types, manifest.main].filter(Boolean);
  for (const target of targets) {
    if (!present.has(target.replace(/^\.\//, ''))) problems.push(`${target} is named in package.json but not packed`);
  }
  if (!files.some((file) => /^readme\.md$/i.test(file))) problems.push('no README.md');
  for (const file of files.filter((path) => TEST_FILE.test(path))) problems.push(`test file packed: ${file}`);
  for (const file of files.filter((path) => /\.(m|c)?(js|ts)$/.test(path))) {
    const match = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(root, file), 'utf8'));
    if (match === null || match[1].startsWith('data:')) continue;
    const map = relative(root, resolve(root, dirname(file), match[1]))
      .split('\\')
      .join('/');
    if (!present.has(map)) problems.push(`${file} points to a source map that is not packed: ${match[1]}`);
  }
  for (const file of files.filter((path) => path.endsWith('.map'))) {
    const { sources = [], sourceRoot = '' } = JSON.parse(readFileSync(join(root, file), 'utf8'));
    for (const source of sources) {
      const path = relative(root, resolve(root, dirname(file), sourceRoot, source))
        .split('\\')
        .join('/');
      if (!present.has(path)) problems.push(`${file} points to a source that is not packed: ${source}`);
    }
  }
  return { problems, files, manifest };
}

function run(tool, args) {
  const result = spawnSync(join(BIN, tool), args, { encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

function main() {
  const work = mkdtempSync(join(tmpdir(), 'authlayer-check-packages-'));
  let failed = false;
  try {
    const packed = packPublicPackages(work);
    for (const pkg of packed) {
      const unpacked = join(work, 'unpacked', pkg.name);
      mkdirSync(unpacked, { recursive: true });
      const untar = spawnSync('tar', ['-xzf', pkg.tarball, '-C', unpacked, '--strip-components=1'], {
        encoding: 'utf8',
      });
      if (untar.status !== 0) throw new Error(`cannot unpack ${pkg.tarball}: ${untar.stderr}`);
      const { problems, files } = inspectUnpacked(unpacked);
      const publint = run('publint', ['run', pkg.tarball, '--strict']);
      if (!publint.ok) problems.push(`publint:\n${publint.output}`);
      const attw = run('attw', [pkg.tarball, '--profile', 'esm-only', '--format', 'table-flipped']);
      if (!attw.ok) problems.push(`attw:\n${attw.output}`);
      const verdict = problems.length === 0 ? 'ok' : 'FAILED';
      console.log(
        `${pkg.name}@${pkg.version}: ${verdict}; tarball ${(pkg.size / 1024).toFixed(1)} kB, ${files.length} files;` +
          ` publint ${publint.ok ? 'ok' : 'FAILED'}, attw (esm-only) ${attw.ok ? 'ok' : 'FAILED'}`,
      );
      for (const problem of problems) console.log(`  - ${problem}`);
      failed ||= problems.length > 0;
    }
    if (packed.length === 0) throw new Error('no public package found under packages/');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (failed) {
    console.error('check:packages: some packages are not fit to publish (see above)');
    process.exit(1);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
