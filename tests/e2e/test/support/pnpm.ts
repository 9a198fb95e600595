import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/pack.mjs';

/**
 * The command that runs the repository's pnpm: the one that runs this suite (turbo keeps
 * `npm_execpath`), else the pinned one through npx, as the README runs it.
 */
export function pnpmCommand(): [string, ...string[]] {
  const execPath = process.env.npm_execpath;
  if (execPath?.includes('pnpm')) return [process.execPath, execPath];
  const { packageManager } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    packageManager: string;
  };
  return ['npx', '-y', packageManager];
}
