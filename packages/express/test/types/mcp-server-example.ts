// Compiled by `typecheck` (strict), never run: the server of docs/mcp.md, verbatim between the
// markers (test/request-auth.http.test.ts keeps the two equal), so the docs' claim that `req` goes to
// the SDK's handleRequest without a cast is checked by the compiler against the installed SDK.
// docs:begin
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { loadConfig } from '@authlayer/core';
import { createAuthMiddleware, errorHandler } from '@authlayer/express';

const auth = await createAuthMiddleware(await loadConfig('authlayer.yaml'));
const app = express();

app.use(auth.access); // the route's rule, then each MCP message's keys; also serves the RFC 9728 document

app.post('/mcp', async (req, res) => {
  // Stateless: one server and one transport per request, as the SDK's examples do.
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.registerTool('get_forecast', { description: 'the forecast' }, (extra) => ({
    // extra.authInfo is req.auth: token, clientId, scopes, expiresAt, resource.
    content: [{ type: 'text', text: `sunny, for ${extra.authInfo?.clientId}` }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void transport.close().then(() => server.close()));
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body); // req.auth is AuthContext & AuthInfo: no cast
});
app.get('/mcp', (_req, res) => res.status(405).set('Allow', 'POST').end());
app.use(errorHandler());
app.listen(3000);
// docs:end

export {};
