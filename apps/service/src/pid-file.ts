import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * `--pid-file PATH`: this process's id in PATH, so that a reload signals exactly this service
 * (`kill -HUP "$(cat PATH)"`), never whichever process `pgrep` finds first. With workers it is the
 * primary's, which passes SIGHUP on to each. Removed at exit, unless another process wrote its own
 * id there since.
 */
export function writePidFile(path: string): void {
  writeFileSync(path, `${process.pid}\n`);
  process.once('exit', () => {
    try {
      if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
    } catch {
      // Already gone, or not ours to remove: nothing to do at exit.
    }
  });
}
