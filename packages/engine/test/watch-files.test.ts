import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@authlayer/core';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../src/engine.js';
import { watchFiles, type FileWatch } from '../src/reload/watch-files.js';
import { judge, KEYS, requestTo } from './support/engine-at.js';

// watchFiles on a real temporary folder and fs.watch: every way a file's content changes is seen
// (in place, an editor's rename, a Kubernetes secret's re-linked `..data`), a change that leaves the
// content as it was is not. Each test waits for the callback itself, never for a time.

let dir: string;
const watches: FileWatch[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'watch-files-'));
});
afterEach(() => {
  for (const watch of watches.splice(0)) watch.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Watches `paths`; `next()` resolves at the next call of onChange, `calls` counts them all. */
function watching(paths: string[], settleMs = 5) {
  const made = { calls: 0, next: () => Promise.resolve() };
  let waiter: (() => void) | null = null;
  made.next = () => new Promise<void>((resolve) => (waiter = resolve));
  watches.push(
    watchFiles(
      paths,
      () => {
        made.calls++;
        waiter?.();
      },
      settleMs,
    ),
  );
  return made;
}

describe('watchFiles', () => {
  it('a file written in place', async () => {
    const file = join(dir, 'auth.yaml');
    writeFileSync(file, 'a: 1\n');
    const watch = watching([file]);
    const changed = watch.next();
    writeFileSync(file, 'a: 2\n');
    await changed;
    expect(watch.calls).toBe(1);
  });

  it("a file replaced by a rename (an editor's save), then removed, then made again", async () => {
    const file = join(dir, 'key.pem');
    writeFileSync(file, 'one');
    const watch = watching([file]);
    let changed = watch.next();
    writeFileSync(join(dir, '.key.pem.swp'), 'two');
    renameSync(join(dir, '.key.pem.swp'), file);
    await changed;
    changed = watch.next();
    unlinkSync(file);
    await changed;
    changed = watch.next();
    writeFileSync(file, 'three');
    await changed;
    expect(watch.calls).toBe(3);
  });

  it('a Kubernetes secret: the `..data` link re-pointed at a new folder', async () => {
    mkdirSync(join(dir, '..2026_01'));
    writeFileSync(join(dir, '..2026_01', 'token'), 'old');
    symlinkSync('..2026_01', join(dir, '..data'));
    symlinkSync(join('..data', 'token'), join(dir, 'token'));
    const watch = watching([join(dir, 'token')]);
    const changed = watch.next();
    mkdirSync(join(dir, '..2026_02'));
    writeFileSync(join(dir, '..2026_02', 'token'), 'new');
    symlinkSync('..2026_02', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    await changed;
    expect(watch.calls).toBe(1);
  });

  it('another file of the folder, or the same content written again, is no change', async () => {
    const file = join(dir, 'auth.yaml');
    const other = join(dir, 'other.txt');
    writeFileSync(file, 'same');
    writeFileSync(other, 'x');
    const watch = watching([file]);
    // A second watch of the same folder, on the other file: once it was told, the burst of the
    // first watch (same events, same settling) was judged too.
    const barrier = watching([other]);
    const seen = barrier.next();
    writeFileSync(other, 'y');
    writeFileSync(file, 'same');
    await seen;
    const changed = watch.next();
    writeFileSync(file, 'different');
    await changed;
    // A call for the first burst would have come before this one: its timer was set earlier.
    expect(watch.calls).toBe(1);
  });

  it('a path in a folder that does not exist is watched by nothing, and closing is safe', () => {
    const watch = watchFiles([join(dir, 'missing', 'auth.yaml')], () => undefined);
    expect(() => watch.close()).not.toThrow();
  });
});

describe('reload.watch on an engine', () => {
  let engine: Engine | null = null;
  afterEach(async () => {
    await engine?.close();
    engine = null;
  });

  it('the config file saved: the next generation serves it; a broken save keeps it and says why', async () => {
    const file = join(dir, 'auth.yaml');
    const yaml = (access: string) =>
      `auth:\n  mode: api_key\n  api_keys:\n    keys:\n      - name: admin\n        env_var: ADMIN_KEY\n` +
      `reload:\n  watch: true\naccess:\n  ${access}\n`;
    writeFileSync(file, yaml("'GET /reports': public"));
    const events: unknown[] = [];
    let told: (() => void) | null = null;
    engine = await createEngine(await loadConfig(file), {
      env: { ADMIN_KEY: KEYS.admin },
      logger: { info() {}, warn() {}, error() {} },
      onReload: (event) => {
        events.push(event);
        told?.();
      },
    });
    const reloaded = () => new Promise<void>((resolve) => (told = resolve));
    const reports = async () => (await judge(engine!.current(), requestTo('GET', '/reports'))).step;
    expect(await reports()).toBe('public');

    let next = reloaded();
    writeFileSync(file, yaml("'GET /reports': deny"));
    await next;
    expect(events).toEqual([{ result: 'ok', generation: 2 }]);
    expect(await reports()).toBe('denied');

    next = reloaded();
    writeFileSync(file, 'auth: [not a mode\n');
    await next;
    expect(events[1]).toMatchObject({ result: 'failed', generation: 2 });
    expect(engine.reloadState().lastReloadError).toEqual(expect.any(String));
    expect(await reports()).toBe('denied');
  });
});
