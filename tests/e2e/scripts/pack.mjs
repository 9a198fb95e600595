// Packs the publishable packages of the workspace the way `pnpm publish` would, so the checks and
// the outside-the-workspace apps see exactly what a user downloads from the registry.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests/e2e/scripts → ../../..). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/**
 * Every package under packages/* that is not private: today core, api-key and express, and
 * any mode package that joins later (jwt) without a change here.
 * @returns {{ name: string, version: string, dir: string, manifest: Record<string, unknown> }[]}
 */
export function publicPackages() {
  const root = join(REPO_ROOT, 'packages');
  return readdirSync(root)
    .map((folder) => join(root, folder))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ name: manifest.name, version: manifest.version, dir, manifest }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** True when the JWT mode package is in the workspace (it lands from another branch). */
export const hasJwtPackage = () => existsSync(join(REPO_ROOT, 'packages', 'jwt', 'package.json'));

/**
 * How to run pnpm: the pnpm that runs this script when there is one (`pnpm test`), otherwise
 * the version the root package.json pins, through npx (nothing global needed).
 * @returns {[string, string[]]}
 */
export function pnpmCommand() {
  const execPath = process.env.npm_execpath ?? '';
  if (/pnpm/.test(execPath) && existsSync(execPath)) return [process.execPath, [execPath]];
  const rootManifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  return ['npx', ['-y', rootManifest.packageManager]];
}

/**
 * Runs `pnpm pack` in each public package (which rewrites `workspace:` ranges as publish does)
 * and puts the tarballs in `destination`. Fails when a package has not been built.
 * @param {string} destination an existing folder
 * @param {readonly string[]} [names] only these packages (`@authlayer/hono`, ...); default: every one
 * @returns {{ name: string, version: string, dir: string, manifest: Record<string, unknown>, tarball: string, size: number }[]}
 */
export function packPublicPackages(destination, names) {
  const [command, prefix] = pnpmCommand();
  const wanted = publicPackages().filter((pkg) => names === undefined || names.includes(pkg.name));
  return wanted.map((pkg) => {
    if (!existsSync(join(pkg.dir, 'dist'))) {
      throw new Error(`${pkg.name} has no dist/: build it first (pnpm build)`);
    }
    const result = spawnSync(command, [...prefix, 'pack', '--pack-destination', destination], {
      cwd: pkg.dir,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    if (result.status !== 0) throw new Error(`pnpm pack failed for ${pkg.name}:\n${result.stderr}`);
    const file = `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
    const tarball = join(destination, file);
    if (!existsSync(tarball)) throw new Error(`pnpm pack did not write ${tarball}`);
    return { ...pkg, tarball, size: statSync(tarball).size };
  });
}
