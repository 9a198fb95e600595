// How long `readApiKeysFile` takes to parse and check a keys_file of 10 000 entries (the
// synchronous part of a reload that grows with the file): the first call in a fresh process,
// then the median, min and max of the following ones. Run it several times on the same machine
// and note the load average it prints: the machine's other work moves every figure.
//
//   pnpm --filter @authlayer/bench keys-file [entries] [runs]
import { readApiKeysFile } from '@authlayer/api-key';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ENTRIES = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 11);
const dir = mkdtempSync(join(tmpdir(), 'authlayer-bench-keys-file-'));
const path = join(dir, 'keys.yaml');
const hex = (i) => createHash('sha256').update(`bench-key-${i}`).digest('hex');
writeFileSync(
  path,
  Array.from(
    { length: ENTRIES },
    (_, i) => `- name: client-${i}\n  sha256: "${hex(i)}"\n  roles: [user]\n  created: 2026-11-01\n`,
  ).join(''),
);

const times = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const entries = readApiKeysFile(path);
    times.push(performance.now() - started);
    if (entries.length !== ENTRIES) throw new Error(`read ${entries.length} entries, not ${ENTRIES}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const [first, ...warm] = times;
warm.sort((a, b) => a - b);
const ms = (value) => Math.round(value);
console.log(
  JSON.stringify({
    entries: ENTRIES,
    first_ms: ms(first),
    warm_ms: { min: ms(warm[0]), median: ms(warm[warm.length >> 1]), max: ms(warm.at(-1)) },
    load_average: loadavg()
      .map((value) => value.toFixed(1))
      .join(' '),
    node: process.version,
  }),
);
