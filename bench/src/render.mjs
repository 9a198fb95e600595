// Re-renders a results file from its JSON (every sample is kept there): node src/render.mjs [results/latest.json]
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTENDERS, isBare } from './contenders.mjs';
import { renderMarkdown, replaceReadmeSection, summarize } from './report.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? join(ROOT, 'results', 'latest.json'));
const { meta, samples, micro } = JSON.parse(await readFile(file, 'utf8'));
const ids = new Set(samples.map((s) => s.id));
const workloads = [...new Set(samples.map((s) => s.workload))];
const markdown = renderMarkdown(
  summarize(
    samples,
    CONTENDERS.filter((c) => isBare(c) || ids.has(c.id)),
    workloads,
  ),
  meta,
  micro,
);
await writeFile(file.replace(/\.json$/, '.md'), markdown);
if (!process.argv.includes('--no-readme')) {
  const readme = join(ROOT, 'README.md');
  await writeFile(readme, replaceReadmeSection(await readFile(readme, 'utf8'), markdown));
}
console.log(markdown);
