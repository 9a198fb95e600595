import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT } from '../scripts/pack.mjs';

// Pages move between the README, docs/ and the packages' READMEs: every relative link of every
// page a reader opens must still lead to a file, and to a heading of it when it names one.

const API_REFERENCE = join(REPO_ROOT, 'docs', 'api');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    // docs/api is generated (pnpm docs:api, not committed): its copies of pages keep their links.
    if (path === API_REFERENCE) return [];
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const PAGES = [
  join(REPO_ROOT, 'README.md'),
  join(REPO_ROOT, 'CONTRIBUTING.md'),
  ...markdownFiles(join(REPO_ROOT, 'docs')),
  ...readdirSync(join(REPO_ROOT, 'packages')).map((name) => join(REPO_ROOT, 'packages', name, 'README.md')),
].filter((path) => existsSync(path));

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(path: string): Set<string> {
  const text = readFileSync(path, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => slugOf(heading ?? '')));
}

function linksOf(path: string): string[] {
  const text = readFileSync(path, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target ?? '').filter((t) => !/^[a-z]+:/.test(t));
}

describe('links between the pages', () => {
  it.each(PAGES.map((path) => [relative(REPO_ROOT, path), path]))('%s: every relative link resolves', (_name, path) => {
    const broken = linksOf(path).filter((link) => {
      const [file, anchor] = link.split('#');
      const target = file === undefined || file === '' ? path : join(dirname(path), file);
      if (!existsSync(target)) return true;
      return anchor !== undefined && target.endsWith('.md') && !anchorsOf(target).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});

describe('the README', () => {
  // A first reader's page: what it is, the two commands, a small app, links; the rest is in docs/.
  it('stays at most 200 lines', () => {
    const lines = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(200);
  });
});
