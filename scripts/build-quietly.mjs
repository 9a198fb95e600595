// Builds the reference service (and the packages it depends on) for `pnpm start`, silently when
// the build works: the build tool's own lines would come before the service's on stderr, where a
// start-up failure must be one line of authlayer's (the contract). A build that fails prints all
// it captured, in the order it came, on stderr, and exits with the build's code.
//
// usage: node scripts/build-quietly.mjs [turbo filter]   (default: @authlayer/service...)
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const filter = process.argv[2] ?? '@authlayer/service...';
// turbo's own launcher, run by this Node: no PATH lookup, so `node scripts/...` works outside pnpm too.
const turbo = createRequire(import.meta.url).resolve('turbo/bin/turbo');
const child = spawn(process.execPath, [turbo, 'run', 'build', `--filter=${filter}`, '--output-logs=errors-only'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
const captured = [];
child.stdout.on('data', (chunk) => captured.push(chunk));
child.stderr.on('data', (chunk) => captured.push(chunk));
child.on('error', (error) => {
  process.stderr.write(`authlayer: the build could not run: ${error.message}\n`);
  process.exitCode = 1;
});
child.on('close', (code, signal) => {
  if (code === 0) return;
  process.stderr.write(Buffer.concat(captured));
  if (signal !== null) process.stderr.write(`authlayer: the build was stopped by ${signal}\n`);
  process.exitCode = code ?? 1;
});
