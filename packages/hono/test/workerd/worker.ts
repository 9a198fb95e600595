// A Cloudflare Worker serving a Hono app behind @authlayer/hono, bundled by workerd.test.ts with
// esbuild and run in workerd (miniflare). The config and the key material are the Worker's bindings.
import * as apiKey from '@authlayer/api-key';
import * as jwt from '@authlayer/jwt';
import { Hono } from 'hono';
import authlayer from '../../src/index.js';

interface Bindings {
  readonly AUTHLAYER_CONFIG: string;
  readonly [name: string]: string;
}

// A bundle has no package to import by name: the modes are handed to the engine.
const MODES: Record<string, unknown> = { '@authlayer/api-key': apiKey, '@authlayer/jwt': jwt };

async function build(env: Bindings): Promise<Hono> {
  const app = new Hono();
  const auth = await authlayer({
    config: JSON.parse(env.AUTHLAYER_CONFIG) as object,
    env,
    importModule: async (name: string) => MODES[name],
  });
  app.use(auth);
  app.post('/invoke', (c) => c.json({ auth: c.get('auth') ?? null }));
  app.get('/reports/:id', (c) => c.json({ id: c.req.param('id'), by: c.get('auth')?.userId ?? null }));
  return app;
}

let built: Promise<Hono> | undefined;

export default {
  async fetch(request: Request, env: Bindings, ctx: unknown): Promise<Response> {
    built ??= build(env);
    return (await built).fetch(request, env, ctx as never);
  },
};
