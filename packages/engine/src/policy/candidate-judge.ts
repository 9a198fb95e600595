import {
  ConfigError,
  isConfigError,
  parseAccessTable,
  parseYaml,
  type AuthConfig,
  type AuthContext,
  type AuthRequest,
  type Logger,
} from '@authlayer/core';
import { configSourceOf } from '@authlayer/core/internal';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { authorizeByPlan, planOf } from '../access/access-plan.js';
import { compileTable, type Plan } from '../access/access-table.js';
import type { AccessStep } from '../request/access-step.js';
import type { RequestScope } from '../request/scope.js';

/** One disagreement of `access.candidate` with the live table: `live`/`candidate` are `allowed` or a reason. */
export interface PolicyDiff {
  /** The key that decided the refusal (the candidate's when it refuses, else the live one's). */
  readonly key: string;
  readonly live: string;
  readonly candidate: string;
}

/** The live table's verdict on a request: `null` reason when it went on. */
export interface LiveVerdict {
  readonly reason: string | null;
  readonly key: string | null;
}

/** Judges a request by the candidate table, beside the live verdict; never answers. */
export type CandidateJudge = (
  method: string,
  path: string,
  request: AuthRequest,
  context: AuthContext | null,
  live: LiveVerdict,
) => void;

const MINUTE = 60_000;

/**
 * `access.candidate`: reads the candidate table (a YAML file of `access` keys, relative to the
 * config file) and returns its judge, or `null` without one. Each disagreement is told to
 * `onDiff` (the `authlayer_policy_diff_total` counter) and logged at most once a minute per
 * (key, live, candidate), with how many it stands for.
 *
 * @throws ConfigError at `access.candidate` when the file cannot be read or is not a valid table
 */
export async function loadCandidateJudge(
  config: AuthConfig,
  deps: { readonly logger: Logger; readonly now: () => number; readonly onDiff?: (diff: PolicyDiff) => void },
): Promise<CandidateJudge | null> {
  const file = config.accessPolicy.candidate;
  if (file === undefined) return null;
  const source = configSourceOf(config);
  const path = resolve(source === null ? process.cwd() : dirname(source), file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError({ path: 'access.candidate', message: `cannot read ${path} (${code})` });
  }
  let parsed;
  try {
    parsed = parseAccessTable(parseYaml(text, path), config.modes, 'access.candidate');
  } catch (error) {
    if (!isConfigError(error)) throw error;
    // parseYaml names the file it reads `config`: this file is the candidate, not the config.
    const at = (path: string) => (path === 'config' ? 'access.candidate' : path);
    throw new ConfigError(error.issues.map((issue) => ({ ...issue, path: at(issue.path) })));
  }
  const table = compileTable(parsed.access);
  const fallback = parsed.accessPolicy.default ?? 'authenticated';
  const logged = new Map<string, { at: number; since: number }>();
  return (method, path, request, context, live) => {
    const plan = planOf(table, method, path, request, fallback);
    let verdict: LiveVerdict = { reason: null, key: null };
    if (plan.denied) verdict = { reason: 'route_denied', key: plan.deniedBy };
    else if (plan.authentication === 'required' && context === null) {
      verdict = { reason: 'credentials_missing', key: plan.rules[0]?.key ?? 'default' };
    } else if (context !== null) {
      const refusal = authorizeByPlan(plan, request, context, deps.now, config.scopes?.implies);
      if (refusal !== null) verdict = { reason: refusal.error.reason, key: refusal.route };
    }
    if (verdict.reason === live.reason) return;
    const diff: PolicyDiff = {
      key: verdict.key ?? live.key ?? 'default',
      live: live.reason ?? 'allowed',
      candidate: verdict.reason ?? 'allowed',
    };
    deps.onDiff?.(diff);
    const id = JSON.stringify([diff.key, diff.live, diff.candidate]);
    const now = deps.now();
    const last = logged.get(id);
    if (last !== undefined && now - last.at < MINUTE) return void (last.since += 1);
    const more = last === undefined || last.since === 0 ? '' : ` (${last.since} more since the last line)`;
    logged.set(id, { at: now, since: 0 });
    deps.logger.warn(
      `access.candidate disagrees on ${diff.key}: live ${diff.live}, candidate ${diff.candidate}${more}`,
    );
  };
}

/**
 * The candidate beside the live table's step for one request: at once when the live table let it
 * through untouched or denied it, else once the caller is known (`scope.candidate`, asked by the
 * decision).
 */
export function judgeBeside(
  judge: CandidateJudge,
  live: {
    readonly method: string;
    readonly path: string;
    readonly request: AuthRequest;
    readonly plan: Plan;
    readonly stepped: AccessStep;
  },
  scope: RequestScope,
): void {
  const { method, path, request, plan, stepped } = live;
  if (stepped.kind === 'public') return judge(method, path, request, null, { reason: null, key: null });
  if (stepped.kind === 'denied') {
    return judge(method, path, request, null, { reason: 'route_denied', key: plan.deniedBy });
  }
  scope.candidate = (context, refusal) =>
    judge(
      method,
      path,
      request,
      context.method === 'none' ? null : context,
      refusal === null ? { reason: null, key: null } : { reason: refusal.error.reason, key: refusal.route },
    );
}
