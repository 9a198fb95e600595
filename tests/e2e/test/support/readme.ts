import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../scripts/pack.mjs';

/** The root README, as a new user reads it. */
export const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/**
 * The first fenced code block of `language` after `marker` in the root README, exactly as
 * written there: tests run it so the README and the tests can never drift apart.
 *
 * @throws Error when the marker or the block is missing (someone moved or renamed it)
 */
export function readmeBlock(marker: string, language: string): string {
  const at = README.indexOf(marker);
  if (at === -1) throw new Error(`README.md no longer contains ${JSON.stringify(marker)}`);
  const fence = `\`\`\`${language}\n`;
  const start = README.indexOf(fence, at);
  if (start === -1) throw new Error(`README.md has no \`\`\`${language} block after ${JSON.stringify(marker)}`);
  const end = README.indexOf('\n```', start + fence.length);
  return README.slice(start + fence.length, end + 1);
}
