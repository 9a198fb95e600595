import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The user's app, as a user writes it from the contract's Library API. Prints its port. */
export const SERVER_SOURCE = `import express from 'express';
import { fileURLToPath } from 'node:url';
import { createAuthMiddleware, requirePermissions } from '@authlayer/express';
import { loadConfig } from '@authlayer/core';

const config = await loadConfig(fileURLToPath(new URL('./service.yaml', import.meta.url)));
const auth = await createAuthMiddleware(config);
const app = express();
app.post('/invoke', auth, express.json(), (req, res) => res.json(req.auth));
app.post('/guarded', auth, requirePermissions('invoke'), (req, res) => res.json(req.auth));
app.get('/me', auth.optional, (req, res) => res.json(req.auth));
const server = app.listen(0, '127.0.0.1', () => console.log('listening on port ' + server.address().port));
process.once('SIGTERM', () => server.close());
`;

/**
 * The same app in TypeScript: proves the packed types resolve, `req.auth` needs no cast, the
 * guards and `auth.optional` are typed Express handlers, route parameters stay `string` through
 * `auth`, and `authenticated()` gives `req.auth` without `!`.
 */
export const TYPED_SOURCE = `import express, { type RequestHandler } from 'express';
import {
  authenticated,
  createAuthMiddleware,
  requireAccess,
  requirePermissions,
  requireRoles,
  requireScopes,
} from '@authlayer/express';
import {
  ForbiddenError,
  isForbiddenError,
  loadConfig,
  verifiedClaims,
  type AuthContext,
  type ForbiddenReason,
} from '@authlayer/core';

const auth = await createAuthMiddleware(await loadConfig('service.yaml'));
const optional: RequestHandler = auth.optional;
const app = express();
app.post('/invoke', auth, requirePermissions('invoke'), express.json(), (req, res) => {
  const context: AuthContext | undefined = req.auth;
  res.json({ method: context?.method, userId: req.auth?.userId });
});
app.get('/reports', auth, requireScopes('reports:read'), requireRoles('analyst'), (req, res) => res.json(req.auth?.scopes));
app.get('/me', optional, (req, res) => res.json({ anonymous: req.auth?.method === 'none' }));
app.get('/rule', auth, requireAccess(auth.config.access['GET /rule']), (_req, res) => res.end());
app.get('/throws', auth, () => {
  const reason: ForbiddenReason = 'role_missing';
  const error = new ForbiddenError(reason, null, ['admin']);
  if (isForbiddenError(error)) throw error;
});
app.use(auth.access);
// Route parameters keep their types through auth, and authenticated() gives req.auth without a '!'.
app.get('/users/:id', auth, authenticated((req, res) => {
  const id: string = req.params.id;
  const userId: string | null = req.auth.userId;
  res.json({ id, userId, claims: verifiedClaims(req.auth) });
}));
app.get('/tenants/:tenant', auth.optional, (req, res) => {
  const tenant: string = req.params.tenant;
  res.json({ tenant });
});
const modes: readonly string[] = auth.modes;
console.log(modes, auth.methods);
`;

/** A tsconfig as a user of Node ESM writes it. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: [],
  },
  files: ['typed.ts'],
};

/** The same app on Fastify 5, with `@authlayer/fastify` and the `access` table of its config. */
export const FASTIFY_SOURCE = `import Fastify from 'fastify';
import { fileURLToPath } from 'node:url';
import authlayer from '@authlayer/fastify';
import { loadConfig } from '@authlayer/core';

const app = Fastify();
await app.register(authlayer, { config: await loadConfig(fileURLToPath(new URL('./service.yaml', import.meta.url))) });
app.post('/invoke', async (request) => request.auth);
app.get('/reports/:id', async (request) => ({ id: request.params.id, by: request.auth.userId }));
app.get('/health', async () => ({ ok: true }));
await app.listen({ port: 0, host: '127.0.0.1' });
console.log('listening on port ' + app.server.address().port);
process.once('SIGTERM', () => app.close());
`;

export interface OutsideApp {
  readonly dir: string;
}

/** What the app is written with: Express 5 (the default) or Fastify 5. */
export type Framework = 'express' | 'fastify';

/**
 * Creates an app folder (outside the workspace) that depends on the given tarballs and express 5,
 * writes its config and server, and runs one `npm install` in it.
 */
export async function createOutsideApp(
  dir: string,
  tarballs: readonly string[],
  configYaml: string,
  framework: Framework = 'express',
): Promise<OutsideApp> {
  mkdirSync(dir, { recursive: true });
  // `npm install <tarball>...` records each under the name in its own package.json, as a user's would.
  const manifest = { name: 'outside-app', version: '1.0.0', private: true, type: 'module' };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, 'service.yaml'), configYaml);
  writeFileSync(join(dir, 'server.mjs'), framework === 'express' ? SERVER_SOURCE : FASTIFY_SOURCE);
  writeFileSync(join(dir, 'typed.ts'), TYPED_SOURCE);
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...tarballs, `${framework}@^5`],
    {
      cwd: dir,
      env: { ...process.env, npm_config_update_notifier: 'false' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return { dir };
}
