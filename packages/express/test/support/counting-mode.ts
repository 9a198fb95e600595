import type { AuthHandler, CreateHandler } from '@authlayer/core';

/** How often a mode verified, and the most verifications it had in flight at once. */
export interface VerificationCounter {
  verifications: number;
  inFlight: number;
  maxInFlight: number;
}

/**
 * The real mode package that `auth.mode` names, wrapped to count its verifications (for
 * `importModule`). With `slow`, each verification ends one macrotask later, as one that waits
 * for a key set or an introspection endpoint would, so requests that arrive together overlap.
 */
export function countingMode({ slow = false } = {}) {
  const counter: VerificationCounter = { verifications: 0, inFlight: 0, maxInFlight: 0 };
  const count = async (handler: AuthHandler, request: Parameters<AuthHandler['authenticate']>[0]) => {
    counter.verifications++;
    counter.maxInFlight = Math.max(counter.maxInFlight, ++counter.inFlight);
    try {
      if (slow) await new Promise((resolve) => setImmediate(resolve));
      return await handler.authenticate(request);
    } finally {
      counter.inFlight--;
    }
  };
  const importModule = async (name: string) => {
    const real = (await import(name)) as { createHandler: CreateHandler };
    const createHandler: CreateHandler = async (config, deps) => {
      const handler = await real.createHandler(config, deps);
      return { method: handler.method, authenticate: (request) => count(handler, request) };
    };
    // The package's section and its schema stay the real ones: only the handler is wrapped.
    return { ...real, createHandler };
  };
  return { counter, importModule };
}
