import { afterAll, describe, expect, it } from '@jest/globals';
import { createAuthMiddleware } from '@authlayer/express';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import Fastify from 'fastify';
import authlayer from '../src/index.js';

// An app that kept its own key for the RFC 9728 document while the adapter now answers it: the
// served path is a route for the checks that flag keys naming no route, on both adapters; with
// resource.serve_metadata: false the app serves it, so a key without its route is flagged again.

const KEY = '"GET /.well-known/oauth-protected-resource/mcp"';
const config = (serve: boolean) => ({
  auth: { mode: 'api_key' },
  resource: { identifier: 'https://mcp.example.com/mcp', serve_metadata: serve },
  access: { 'GET /.well-known/oauth-protected-resource/mcp': 'public', 'POST /mcp': 'authenticated' },
});
const env = { SERVICE_API_KEY: 'k3y-for-metadata-key' };
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('a key for the served RFC 9728 document', () => {
  it('is no unmatched rule on Express while auth.access serves the document', async () => {
    const auth = await createAuthMiddleware(config(true), { env, logger: createCaptureLogger() });
    closers.push(() => auth.close());
    const app = express().use(auth.access);
    app.post('/mcp', (_req, res) => void res.end());
    expect(auth.unmatchedRules(app)).toEqual([]);
  });

  it('is flagged on Express when the app serves the document itself and has no route for it', async () => {
    const auth = await createAuthMiddleware(config(false), { env, logger: createCaptureLogger() });
    closers.push(() => auth.close());
    const app = express().use(auth.access);
    app.post('/mcp', (_req, res) => void res.end());
    expect(auth.unmatchedRules(app)).toEqual([KEY.slice(1, -1)]);
  });

  it('names a route on Fastify: ready() starts and unmatchedRules() is empty', async () => {
    const app = Fastify();
    closers.push(() => app.close());
    await app.register(authlayer, { config: config(true), env, logger: createCaptureLogger() });
    app.post('/mcp', async () => ({}));
    await app.ready();
    expect(app.authlayer.unmatchedRules()).toEqual([]);
  });

  it('is flagged on Fastify when the app serves the document itself and has no route for it', async () => {
    const app = Fastify();
    closers.push(() => app.close());
    await app.register(authlayer, { config: config(false), env, logger: createCaptureLogger() });
    app.post('/mcp', async () => ({}));
    await expect(app.ready()).rejects.toThrow(`access.${KEY.slice(1, -1)}: names no route`);
  });
});
