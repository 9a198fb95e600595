import { isConfigError, loadConfig, type AuthConfig } from '@authlayer/core';
import {
  CallerError,
  PolicyTestFileError,
  RequestError,
  createPolicyEvaluator,
  runPolicyTests,
  type PolicyRequest,
  type VerifiedCaller,
} from '@authlayer/express';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatExplanation, formatReport } from './policy-output.js';

/** Exit codes of `authlayer test` (and `explain`): the contract's. */
export const EXIT = { passed: 0, invalid: 3, failed: 4 } as const;

/** Where the command writes: stdout for results, stderr for the one line of an invalid input. */
export interface CommandIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** The service's own config when neither `--config` nor `SERVICE_CONFIG` says one. */
  readonly defaultConfig: string;
}

/** A bad flag or caller: exit 3, one line. */
class InputError extends Error {}

/**
 * `authlayer test [--config F] [--coverage] <files...>` and `authlayer explain [--config F] --as
 * <caller> ("<METHOD> <path>" | --mcp <json>)`; resolves with the exit code.
 */
export async function runPolicyCommand(command: 'test' | 'explain', argv: string[], io: CommandIo): Promise<number> {
  try {
    return command === 'test' ? await runTest(argv, io) : await runExplain(argv, io);
  } catch (error) {
    const known =
      isConfigError(error) ||
      error instanceof PolicyTestFileError ||
      error instanceof InputError ||
      error instanceof CallerError ||
      error instanceof RequestError;
    if (!known) throw error;
    const message = isConfigError(error) ? `config error: ${error.message}` : error.message;
    io.err(`authlayer: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    return EXIT.invalid;
  }
}

async function runTest(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parse(
    argv,
    { coverage: { type: 'boolean' } },
    'test [--config FILE] [--coverage] FILE...',
  );
  if (positionals.length === 0) throw new InputError('test needs at least one test file (authlayer test cases.yaml)');
  const config = await configOf(values.config as string | undefined, io);
  const files = positionals.map((file) => resolve(io.env.INIT_CWD || io.cwd, file));
  const report = await runPolicyTests(config, files);
  io.out(formatReport(report, values.coverage === true));
  return report.failures.length === 0 ? EXIT.passed : EXIT.failed;
}

async function runExplain(argv: string[], io: CommandIo): Promise<number> {
  const usage = 'explain [--config FILE] --as CALLER ("METHOD /path" | --mcp JSON)';
  const { values, positionals } = parse(argv, { as: { type: 'string' }, mcp: { type: 'string' } }, usage);
  if (typeof values.as !== 'string') throw new InputError(`explain needs --as (usage: ${usage})`);
  const request = requestOf(positionals, values.mcp as string | undefined, usage);
  const config = await configOf(values.config as string | undefined, io);
  const evaluator = await createPolicyEvaluator(config);
  const verdict = await evaluator.evaluate(callerOf(values.as), request);
  io.out(formatExplanation(values.as, request, verdict));
  return EXIT.passed;
}

type Flags = Record<string, { type: 'string' | 'boolean' }>;

function parse(argv: string[], options: Flags, usage: string) {
  try {
    const parsed = parseArgs({
      args: argv,
      options: { config: { type: 'string' }, ...options },
      allowPositionals: true,
    });
    return parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };
  } catch (error) {
    throw new InputError(`${(error as Error).message} (usage: authlayer ${usage})`);
  }
}

async function configOf(given: string | undefined, io: CommandIo): Promise<AuthConfig> {
  const path = given ?? (io.env.SERVICE_CONFIG || undefined);
  return loadConfig(path === undefined ? io.defaultConfig : resolve(io.env.INIT_CWD || io.cwd, path));
}

function requestOf(positionals: string[], mcp: string | undefined, usage: string): PolicyRequest {
  if (mcp !== undefined && positionals.length === 0) {
    try {
      return { mcp: JSON.parse(mcp) as never };
    } catch {
      throw new InputError('--mcp must be JSON: {"method":"tools/call","name":"...","arguments":{...}}');
    }
  }
  if (positionals.length !== 1 || mcp !== undefined)
    throw new InputError(`give one request (usage: authlayer ${usage})`);
  return { request: positionals[0]! };
}

/** `anonymous`, `api_key:<name>`, `jwt:<claims as JSON>`, `oauth2:<claims as JSON>`. */
export function callerOf(text: string): VerifiedCaller {
  if (text === 'anonymous') return 'anonymous';
  const colon = text.indexOf(':');
  const mode = text.slice(0, colon);
  const rest = text.slice(colon + 1);
  if (mode === 'api_key' && rest !== '') return { api_key: rest };
  if ((mode === 'jwt' || mode === 'oauth2') && colon !== -1) {
    try {
      return { [mode]: JSON.parse(rest) as Record<string, unknown> } as VerifiedCaller;
    } catch {
      throw new InputError(`--as ${mode}: the claims must be JSON, {"sub":"u-1","roles":["admin"]}`);
    }
  }
  throw new InputError('--as must be anonymous, api_key:<name>, jwt:<claims JSON> or oauth2:<claims JSON>');
}
