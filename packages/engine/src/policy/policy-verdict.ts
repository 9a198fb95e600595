import type { TraceEntry } from './policy-trace.js';

/** The engine's answer to one case, and every key that applied. */
export interface PolicyVerdict {
  /** 200 when the request goes on (to the app, or to the MCP server). */
  readonly status: number;
  /** The refusal's reason (`role_missing`, `credentials_missing`, ...); `null` when it goes on. */
  readonly reason: string | null;
  /** The `WWW-Authenticate` of the answer, else `null`. */
  readonly challenge: string | null;
  /** The key that decided a refusal (`default` for `default: deny`), else `null`. */
  readonly key: string | null;
  /** `access.report_only`: the refusal the table would have answered, else `null`. */
  readonly wouldRefuse: { readonly reason: string; readonly key: string | null } | null;
  /** Every key that applied, in order: route keys, then the MCP message's keys. */
  readonly trace: readonly TraceEntry[];
}
