import { beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { createCaptureLogger, expectedContext } from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, type AuthMiddleware } from '../src/index.js';

// req.auth is typed RequestAuth (AuthContext & the SDK's AuthInfo) in every config, so what the
// type promises must hold at run time also without `resource` or `mcp`.
const KEY = 'k3y-for-request-auth';
let auth: AuthMiddleware;
beforeAll(async () => {
  auth = await createAuthMiddleware(
    { auth: { mode: 'api_key' } },
    { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() },
  );
});

const app = () =>
  express().get('/me', auth.optional, (req, res) => {
    const seen = req.auth!;
    res.json({ json: seen, token: seen.token, clientId: seen.clientId, scopes: seen.scopes });
  });

describe('req.auth without resource or mcp', () => {
  it('carries the token and the client id as strings, and its JSON is the AuthContext', async () => {
    const res = await request(app()).get('/me').set('X-API-Key', KEY).expect(200);
    expect(res.body).toEqual({
      json: expectedContext({ method: 'api_key', userId: 'SERVICE_API_KEY' }),
      token: KEY,
      clientId: 'SERVICE_API_KEY',
      scopes: [],
    });
  });

  it('gives an anonymous caller an empty token and client id, not a header it did not check', async () => {
    const res = await request(app()).get('/me').expect(200);
    expect(res.body).toEqual({ json: expectedContext({ method: 'none' }), token: '', clientId: '', scopes: [] });
  });
});

describe.each(['mcp-server-example.ts', 'mcp-client-example.ts', 'mcp-files-example.ts'])(
  "docs/mcp.md's example in %s",
  (file) => {
    it('is the file typecheck compiles (test/types)', async () => {
      const docs = await readFile(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
      const compiled = await readFile(new URL(`./types/${file}`, import.meta.url), 'utf8');
      const example = /\/\/ docs:begin\n([\s\S]*?)\/\/ docs:end\n/.exec(compiled)?.[1];
      expect(example).toBeDefined();
      expect(docs).toContain('```ts\n' + example + '```\n');
    });
  },
);
