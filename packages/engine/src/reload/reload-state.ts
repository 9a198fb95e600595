import { isConfigError } from '@authlayer/core';
import { kindOf } from '../request/kind-of.js';

/** What `/healthz` shows of the config (contract: the `config` block). */
export interface ReloadState {
  /** 1 for the config the middleware was made with, then one more for each successful reload. */
  readonly generation: number;
  /** When the serving config was loaded (ISO 8601). */
  readonly loadedAt: string;
  /** The log line of the last reload, when it failed; `null` after a success. */
  readonly lastReloadError: string | null;
}

/** One reload, as `onReload` is told of it. */
export interface ReloadEvent {
  readonly result: 'ok' | 'failed';
  /** The generation that serves after it. */
  readonly generation: number;
  /** The error line, for a failed reload. */
  readonly error?: string;
}

/**
 * The line a failed reload logs: a ConfigError's message names every field (and never a value);
 * any other error only by its kind, since its message was not written for a log line.
 */
export function reloadFailure(error: unknown, generation: number): string {
  const why = isConfigError(error) ? error.message : `unexpected ${kindOf(error)}${describeCode(error)}`;
  return `config reload failed: ${why}; generation ${generation} keeps serving`;
}

function describeCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? ` (${code})` : '';
}
