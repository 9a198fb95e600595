import type { AuthConfig } from '@authlayer/core';
import { createPolicyEvaluator, type PolicyEvaluator, type PolicyVerdict } from './policy-evaluator.js';
import { RequestError } from './policy-request.js';
import { PolicyTestFileError, readPolicyTestFile, type PolicyCase, type PolicyTestFile } from './policy-test-file.js';
import { CallerError } from './verified-callers.js';

/** A case whose answer differed from what it expects. */
export interface PolicyCaseFailure {
  readonly file: string;
  readonly case: string;
  readonly expected: PolicyCase['expect'];
  readonly actual: PolicyVerdict;
  /** `<file>: <case>: expected 403 role_missing, got 200` */
  readonly message: string;
}

/** What a run of test files found. */
export interface PolicyTestReport {
  readonly files: number;
  readonly cases: number;
  readonly failures: readonly PolicyCaseFailure[];
  /** The table's route and MCP keys that no case reached (see `--coverage`). */
  readonly unreached: readonly string[];
}

/**
 * Runs every case of `files` against `config`'s policy (see `createPolicyEvaluator`): all of them,
 * whatever fails, so one run lists every failure.
 *
 * @throws PolicyTestFileError when a file cannot be read, or a case cannot be made for this config
 *   (a caller's key it does not have, an MCP case without `mcp`): the file is wrong, not the policy
 */
export async function runPolicyTests(
  config: AuthConfig,
  files: readonly string[],
  options: { readonly now?: () => number; readonly evaluator?: PolicyEvaluator } = {},
): Promise<PolicyTestReport> {
  const read: PolicyTestFile[] = [];
  for (const file of files) read.push(await readPolicyTestFile(file));
  const evaluator = options.evaluator ?? (await createPolicyEvaluator(config, options));
  const failures: PolicyCaseFailure[] = [];
  const reached = new Set<string>();
  let cases = 0;
  for (const { file, cases: list } of read) {
    for (const each of list) {
      cases += 1;
      const actual = await evaluateCase(evaluator, file, each);
      for (const entry of actual.trace) reached.add(entry.key);
      const failure = differenceOf(each.expect, actual);
      if (failure !== null) {
        failures.push({
          file,
          case: each.name,
          expected: each.expect,
          actual,
          message: `${file}: ${each.name}: ${failure}`,
        });
      }
    }
  }
  const unreached = Object.keys(config.access).filter((key) => !reached.has(key));
  return { files: read.length, cases, failures, unreached };
}

async function evaluateCase(evaluator: PolicyEvaluator, file: string, each: PolicyCase): Promise<PolicyVerdict> {
  try {
    return await evaluator.evaluate(each.caller, each.request);
  } catch (error) {
    if (error instanceof CallerError) throw new PolicyTestFileError(`${file}: callers.${each.as}: ${error.message}`);
    if (error instanceof RequestError) throw new PolicyTestFileError(`${file}: ${each.name}: ${error.message}`);
    throw error;
  }
}

/** What differed, in a few words; `null` when the case passes. */
export function differenceOf(expected: PolicyCase['expect'], actual: PolicyVerdict): string | null {
  const statusDiffers = expected.status !== actual.status;
  const reasonDiffers = expected.reason !== undefined && expected.reason !== actual.reason;
  if (!statusDiffers && !reasonDiffers) return null;
  const want = expected.reason === undefined ? `${expected.status}` : `${expected.status} ${expected.reason}`;
  const got = actual.reason === null ? `${actual.status}` : `${actual.status} ${actual.reason}`;
  const by = actual.key === null ? '' : ` (by ${actual.key})`;
  return `expected ${want}, got ${got}${by}`;
}
