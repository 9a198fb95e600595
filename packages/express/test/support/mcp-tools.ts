import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '@authlayer/core';
import type { TestIdentityProvider } from '@authlayer/testkit';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createAuthMiddleware, type AuthDecision, type AuthMiddleware } from '../../src/index.js';

/**
 * The middleware of an MCP server at `/mcp` whose tokens are the provider's, with `resource`
 * `identifier` as their audience; every decision goes to `decisions`.
 */
export async function mcpMiddleware(
  idp: TestIdentityProvider,
  options: { access: object; identifier: string; mcp?: object; logger: Logger; decisions: AuthDecision[] },
): Promise<AuthMiddleware> {
  const { access, identifier, mcp, logger, decisions } = options;
  const config = idp.config('jwt', { access, mcp: { endpoint: '/mcp', ...mcp } }) as { auth: { jwt: object } };
  return createAuthMiddleware(
    {
      ...config,
      auth: { ...config.auth, jwt: { ...config.auth.jwt, audience: null } },
      resource: { identifier },
    },
    { env: idp.env, logger, onDecision: (decision) => decisions.push(decision) },
  );
}

/**
 * The official SDK's McpServer with two tools, stateless with JSON answers (a server and a transport
 * per request, as the SDK's examples do); each tool that runs is recorded in `ran`.
 */
export async function serveMcp(req: IncomingMessage, res: ServerResponse, body: unknown, ran: string[]) {
  const server = new McpServer({ name: 'edges', version: '1.0.0' });
  for (const name of ['get_forecast', 'delete_file']) {
    server.registerTool(name, { description: name }, () => {
      ran.push(name);
      return { content: [{ type: 'text', text: name }] };
    });
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => void transport.close().then(() => server.close()));
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** A JSON-RPC `tools/call` of `name`. */
export const callTool = (name: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

/** MCP's `initialize`, as the conformance suite's DNS-rebinding scenario sends it. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'edges', version: '1.0.0' } },
});

/**
 * One raw HTTP request to a loopback port: the path sent as written (`/mcp/%2e` stays), any
 * `Host` header (node:http sends the one given), and a POST's headers of an MCP client.
 */
export async function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    method,
    path,
    headers: {
      connection: 'close',
      accept: 'application/json, text/event-stream',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
  });
  req.end(body);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  let text = '';
  res.setEncoding('utf8');
  for await (const chunk of res) text += chunk as string;
  return { status: res.statusCode ?? 0, body: text };
}
