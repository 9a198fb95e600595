import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';

/** What {@link watchFiles} returns: stop watching. */
export interface FileWatch {
  close(): void;
}

/**
 * Calls `onChange` when the content of any of `paths` changes, however it changed: written in
 * place, replaced by a rename (an editor's save), or re-linked (Kubernetes updates a mounted
 * secret by pointing the `..data` symlink at a new directory, which the files link through).
 * The directories are watched, not the files: a watch on a file follows the inode it was opened
 * on, and a rename or a re-link leaves that inode behind. Each burst of events is judged once,
 * `settleMs` after its last event, by the files' content (a SHA-256 of each, or the error of
 * reading it), so unrelated files in the same directory never cause a reload.
 */
export function watchFiles(paths: readonly string[], onChange: () => void, settleMs = 50): FileWatch {
  let last = fingerprint(paths);
  let timer: NodeJS.Timeout | null = null;
  const settle = () => {
    timer = null;
    const now = fingerprint(paths);
    if (now === last) return;
    last = now;
    onChange();
  };
  const changed = () => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(settle, settleMs);
    timer.unref();
  };
  const watchers: FSWatcher[] = [];
  for (const directory of directoriesOf(paths)) {
    try {
      // Not persistent: watching must never keep a process alive that has stopped serving.
      const watcher = watch(directory, { persistent: false }, changed);
      watcher.on('error', () => watcher.close());
      watchers.push(watcher);
    } catch {
      // A directory that does not exist (yet) cannot be watched; its file is already missing,
      // so the reload that named it failed and said so.
    }
  }
  return {
    close() {
      if (timer !== null) clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}

/** The directory of each path and of the file it links to (a symlink may point elsewhere). */
function directoriesOf(paths: readonly string[]): Set<string> {
  const directories = new Set<string>();
  for (const path of paths) {
    directories.add(dirname(path));
    try {
      directories.add(dirname(realpathSync(path)));
    } catch {
      // Missing: its own directory is watched, so its creation is seen.
    }
  }
  return directories;
}

function fingerprint(paths: readonly string[]): string {
  const hash = createHash('sha256');
  for (const path of paths) {
    try {
      hash.update(readFileSync(path));
      hash.update('\0ok\0');
    } catch (error) {
      hash.update(`\0${String((error as NodeJS.ErrnoException).code)}\0`);
    }
  }
  return hash.digest('base64');
}
