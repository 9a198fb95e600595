import type { AuthMiddleware } from '@authlayer/express';
import express, { type Router } from 'express';

/**
 * `GET /healthz` (liveness: 200 whenever the process answers, with the mode, the active
 * handler, the serving config's `generation`, `loaded_at` and `last_reload_error`, for a handler
 * with remote keys `keys.state`, and with `revocation.store` the list's state, `revocations`:
 * `loaded`, `stale` or `unavailable`) and `GET /readyz` (200
 * `{"status":"ready"}` when the active handler can verify now: a static key, or a key set fetched
 * and usable, and the revocation list was loaded once; else 503 `{"status":"not_ready",
 * "keys":{"state":...}}` or `"revocations":"unavailable"`). Neither needs authentication; what
 * they say comes from the middleware's `readiness()`.
 */
export function healthRouter(auth: AuthMiddleware): Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    const { keys, revocations } = auth.readiness();
    const { generation, loadedAt, lastReloadError } = auth.reloadState();
    res.json({
      status: 'ok',
      auth: describeAuth(auth),
      config: { generation, loaded_at: loadedAt, last_reload_error: lastReloadError },
      ...(keys === undefined ? {} : { keys: { state: keys } }),
      ...(revocations === undefined ? {} : { revocations }),
    });
  });
  router.get('/readyz', (_req, res) => {
    const { ready, keys, revocations } = auth.readiness();
    if (ready) return void res.json({ status: 'ready' });
    // An answer, not a failure: logged at info (the handler warns once per outage itself).
    res.locals.routine = true;
    res.status(503).json({
      status: 'not_ready',
      ...(keys === undefined ? {} : { keys: { state: keys } }),
      ...(revocations === 'unavailable' ? { revocations } : {}),
    });
  });
  return router;
}

/**
 * `/healthz`'s `auth`: the configured mode and the active handler, each a list when `auth.mode`
 * lists several modes (`handler` then lists the modes that authenticate, or `["none"]`).
 */
export function describeAuth(auth: AuthMiddleware): {
  mode: string | readonly string[];
  handler: string | readonly string[];
} {
  return auth.modes.length > 1
    ? { mode: auth.modes, handler: auth.methods }
    : { mode: auth.mode, handler: auth.method };
}
