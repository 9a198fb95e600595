import type { ReloadCarry } from '@authlayer/core';

/** The things one generation of the middleware holds, by key (see `ReloadCarry`). */
export interface CarryPool {
  readonly carry: ReloadCarry;
  /** The new generation serves: close what the previous one held and this one did not keep. */
  commit(): void;
  /** The new generation was refused: close what it made (what it kept stays with the previous). */
  abort(): void;
  /** Close everything (shutdown). */
  close(): void;
}

/**
 * A pool for one generation, taking from the `previous` generation's pool what a handler asks
 * for again with the same key.
 */
export function createCarryPool(previous: CarryPool | null = null): CarryPool & { readonly held: Map<string, object> } {
  const held = new Map<string, object>();
  const made = new Set<object>();
  const before = (previous as { held?: Map<string, object> } | null)?.held ?? new Map<string, object>();
  return {
    held,
    carry: {
      keep<T extends object>(key: string, make: () => T): T {
        const known = (held.get(key) ?? before.get(key)) as T | undefined;
        if (known !== undefined) {
          held.set(key, known);
          return known;
        }
        const fresh = make();
        held.set(key, fresh);
        made.add(fresh);
        return fresh;
      },
    },
    commit() {
      const kept = new Set(held.values());
      for (const thing of before.values()) if (!kept.has(thing)) closeThing(thing);
    },
    abort() {
      for (const thing of made) closeThing(thing);
    },
    close() {
      for (const thing of held.values()) closeThing(thing);
    },
  };
}

/** Closes a thing, or what a promise of one resolves with (a store connection being made). */
function closeThing(thing: object): void {
  if (thing instanceof Promise) return void thing.then(closeThing, () => undefined);
  (thing as { close?: () => void }).close?.();
}
