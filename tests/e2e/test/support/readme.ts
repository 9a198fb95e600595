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
  return blockOf('README.md', README, marker, language);
}

/** The same for a page of `docs/` (`docs/operations.md`), as written there. */
export function docsBlock(page: string, marker: string, language: string): string {
  return blockOf(page, readFileSync(join(REPO_ROOT, page), 'utf8'), marker, language);
}

function blockOf(name: string, text: string, marker: string, language: string): string {
  const at = text.indexOf(marker);
  if (at === -1) throw new Error(`${name} no longer contains ${JSON.stringify(marker)}`);
  const fence = `\`\`\`${language}\n`;
  const start = text.indexOf(fence, at);
  if (start === -1) throw new Error(`${name} has no \`\`\`${language} block after ${JSON.stringify(marker)}`);
  const end = text.indexOf('\n```', start + fence.length);
  return text.slice(start + fence.length, end + 1);
}
