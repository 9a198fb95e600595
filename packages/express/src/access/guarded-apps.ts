import { ConfigError } from '@authlayer/core';
import { shownInError } from '@authlayer/core/internal';
import type { AccessTable, Generation } from '@authlayer/engine/internal';
import type { Request } from 'express';
import { unmatchedKeys } from './unmatched-rules.js';
import { servedMetadataPath } from '../metadata.js';

/**
 * The apps `auth.access` guards: the app of the requests it has seen (when it is mounted at the
 * app's root, where the table's keys and the app's routes are the same paths) and each one given
 * to `unmatchedRules(app)`. A reload whose table has a key that matches no route of any of them is
 * refused like a broken config: a typo loaded by SIGHUP would otherwise fall to `access.default`
 * and open the route it meant to close. With `forward_auth` the table describes the application
 * behind the proxy, not this one, and is not checked.
 */
export function createGuardedApps() {
  const apps = new Set<object>();
  let last: unknown = null;
  const add = (app: unknown) => {
    if (typeof app === 'object' || typeof app === 'function') apps.add(app as object);
  };
  return {
    add,
    seen(req: Request) {
      // One comparison per request; the set grows only with another app (a handful at most).
      if (req.app === last || req.baseUrl !== '') return;
      last = req.app;
      add(req.app);
    },
    check(next: Pick<Generation, 'config' | 'table' | 'resourceMetadata'>) {
      if (apps.size === 0 || next.config.forwardAuth.enabled) return;
      let unmatched: string[] | null = null;
      for (const app of apps) {
        const keys = unmatchedKeys(next.table.entries, app, servedMetadataPath(next));
        unmatched = unmatched === null ? keys : unmatched.filter((key) => keys.includes(key));
      }
      if (unmatched === null || unmatched.length === 0) return;
      throw new ConfigError(
        unmatched.map((key) => ({
          path: `access.${key}`,
          message: `the app has no route that ${key} matches (a typo? it would guard nothing)`,
        })),
      );
    },
  };
}

/**
 * Refuses a table with a key whose pattern Express cannot parse (`GET /files/*`): `loadConfig`
 * checks a key's shape only, so that Fastify's wildcards load; here such a key would match no
 * request and guard nothing.
 *
 * @throws ConfigError naming each such key
 */
export function refuseUnparsedKeys(table: AccessTable): void {
  if (table.unparsed.length === 0) return;
  throw new ConfigError(table.unparsed.map(({ key, message }) => ({ path: `access.${shownInError(key)}`, message })));
}
