import { ConfigError, type AuthConfig } from '@authlayer/core';
import { configSourceOf } from '@authlayer/core/internal';
import { dirname, resolve } from 'node:path';
import { PolicyTestFileError } from './policy-test-file.js';
import { runPolicyTests } from './run-policy-tests.js';

/**
 * `access.tests`: runs the config's policy test files (paths relative to the config file, else to
 * the working directory) before its generation serves, at start-up and at every reload.
 *
 * @throws ConfigError at `access.tests` naming the first failed case (and how many failed), or
 *   the test file that cannot be run: the generation does not serve, the serving one stays
 */
export async function checkAccessTests(config: AuthConfig, now: () => number): Promise<void> {
  const files = config.accessPolicy.tests;
  if (files === undefined || files.length === 0) return;
  const source = configSourceOf(config);
  const base = source === null ? process.cwd() : dirname(source);
  let failures;
  try {
    ({ failures } = await runPolicyTests(
      config,
      files.map((file) => resolve(base, file)),
      { now },
    ));
  } catch (error) {
    if (!(error instanceof PolicyTestFileError)) throw error;
    throw new ConfigError({ path: 'access.tests', message: error.message });
  }
  const [first] = failures;
  if (first === undefined) return;
  const more = failures.length === 1 ? '' : ` (and ${failures.length - 1} more)`;
  throw new ConfigError({ path: 'access.tests', message: `a case failed: ${first.message}${more}` });
}
