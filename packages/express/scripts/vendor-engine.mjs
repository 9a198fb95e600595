#!/usr/bin/env node
// Build step, after tsc: @authlayer/engine travels inside this package (dist/engine/) until the
// engine is on the registry, so an app installs core + express + a mode and nothing else (the
// contract's "install only the modes you need"). The engine's build is copied, and this package's
// imports of it become relative. Its own imports (@authlayer/core, openapi3-ts, the optional peers)
// are this package's dependencies and peers too.
import { cpSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const engine = join(dist, 'engine');
rmSync(engine, { recursive: true, force: true });
cpSync(join(root, '..', 'engine', 'dist'), engine, { recursive: true });

const files = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (path === engine) return [];
    return statSync(path).isDirectory() ? files(path) : [path];
  });
for (const file of files(dist)) {
  if (!file.endsWith('.js') && !file.endsWith('.d.ts')) continue;
  const text = readFileSync(file, 'utf8');
  const to = (entry) => {
    const path = relative(dirname(file), join(engine, entry)).replaceAll('\\', '/');
    return path.startsWith('.') ? path : `./${path}`;
  };
  const next = text
    .replaceAll("'@authlayer/engine/internal'", `'${to('internal.js')}'`)
    .replaceAll("'@authlayer/engine'", `'${to('index.js')}'`);
  if (next !== text) writeFileSync(file, next);
}
