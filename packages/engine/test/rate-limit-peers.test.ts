import { afterAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadRateLimits } from '../src/load-rate-limits.js';

// rate-limiter-flexible and ioredis are optional peers: a module outside the workspace imports
// them, so Node's own "Cannot find package" error is what a user without them would get.
const CONFIG = { requestsPerMinute: 10, failedAuthPerMinute: null, store: 'memory', trustProxy: false };
const dir = mkdtempSync(join(tmpdir(), 'authlayer-peers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function moduleImporting(name: string, body: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, body);
  return pathToFileURL(file).href;
}

/**
 * Runs the built loadRateLimits in a plain Node.js process (jest resolves imports its own way),
 * its rate limits imported through `importer`; resolves with what it threw, as JSON.
 */
function loadIn(importer: string): Promise<{ name: string; message: string }> {
  const middleware = new URL('../dist/load-rate-limits.js', import.meta.url).href;
  const script = `
    const { loadRateLimits } = await import(${JSON.stringify(middleware)});
    const logger = { info() {}, warn() {}, error() {} };
    const config = ${JSON.stringify(CONFIG)};
    try {
      await loadRateLimits(config, logger, undefined, () => import(${JSON.stringify(importer)}));
      console.log(JSON.stringify({ name: 'none', message: '' }));
    } catch (error) {
      console.log(JSON.stringify({ name: error.name, message: error.message }));
    }`;
  return new Promise((done, fail) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], (error, stdout) =>
      error === null ? done(JSON.parse(stdout) as { name: string; message: string }) : fail(error),
    );
  });
}

describe('loadRateLimits without its optional peers', () => {
  it.each(['rate-limiter-flexible', 'ioredis'])('names %s in a ConfigError at rate_limit', async (name) => {
    expect(await loadIn(moduleImporting(name, `export * from '${name}';\n`))).toEqual({
      name: 'ConfigError',
      message: `rate_limit: needs the package ${name}, which is not installed: install rate-limiter-flexible and ioredis in the app (optional peers of @authlayer/engine, which every adapter uses)`,
    });
  });

  it('lets any other failure through as it is', async () => {
    expect(await loadIn(moduleImporting('broken', 'export const = ;\n'))).toMatchObject({ name: 'SyntaxError' });
  });

  it('loads them when they are installed', async () => {
    const limits = await loadRateLimits(CONFIG, createCaptureLogger());
    // The memory store answers in the same turn.
    expect(limits.consumeRequest('api_key:a')).toMatchObject({ wait: null });
    limits.close();
  });
});
