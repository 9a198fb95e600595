import type { AccessDefault } from '@authlayer/core';

// Most requests go to a few paths, and what the table asks of a path never changes while its
// table serves: a plan made once per method and path (the entries matched, with their decoded
// parameters) is looked up instead of matching every candidate entry again. Paths are the
// client's choice, so the memo is bounded: a path longer than `MAX_PATH` is never kept, and the
// memo is emptied when it holds `MAX_PLANS` plans; a client can make it miss, never grow.

const MAX_PLANS = 1024;
const MAX_PATH = 256;

/** The plans of one table, by `access.default`, method and path (see `planOf`). */
export class PlanMemo<Plan> {
  readonly #plans = new Map<AccessDefault, Map<string, Map<string, Plan>>>();
  #size = 0;

  /** The plan kept for `fallback`, `method` and `path`, or undefined. */
  get(fallback: AccessDefault, method: string, path: string): Plan | undefined {
    return this.#plans.get(fallback)?.get(method)?.get(path);
  }

  /** Keeps `plan` for `fallback`, `method` and `path` (not when the path is too long to keep). */
  set(fallback: AccessDefault, method: string, path: string, plan: Plan): void {
    if (path.length > MAX_PATH) return;
    if (this.#size >= MAX_PLANS) this.clear();
    let byMethod = this.#plans.get(fallback);
    if (byMethod === undefined) this.#plans.set(fallback, (byMethod = new Map()));
    let byPath = byMethod.get(method);
    if (byPath === undefined) byMethod.set(method, (byPath = new Map()));
    byPath.set(path, plan);
    this.#size += 1;
  }

  /** Drops every plan (the memo is full). */
  private clear(): void {
    for (const byMethod of this.#plans.values()) for (const byPath of byMethod.values()) byPath.clear();
    this.#size = 0;
  }
}
