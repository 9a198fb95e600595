import { createAuthMiddleware, type AuthDecision } from '@authlayer/express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveHono } from './serve.js';

// One MCP server (the official SDK, stateless) behind Express and behind Hono, on the same config:
// Express with the SDK's Node transport, Hono with its web-standard one, as each one's docs show.

/** A served app: its URL, the decisions it made, the tools that ran, the AuthInfo they saw. */
export interface McpApp {
  readonly url: string;
  readonly decisions: AuthDecision[];
  readonly ran: { tool: string; clientId: string | undefined }[];
  close(): Promise<void>;
}

export const TOOLS = ['get_forecast', 'delete_file', 'admin_reset', 'report'] as const;

function mcpServer(ran: McpApp['ran']): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  for (const tool of TOOLS) {
    server.registerTool(tool, { description: tool }, (extra) => {
      ran.push({ tool, clientId: extra.authInfo?.clientId });
      return { content: [{ type: 'text', text: tool }] };
    });
  }
  return server;
}

// `X-Answer: sse` asks the transport for an event stream; JSON otherwise.
const jsonAnswer = (value: string | undefined) => value !== 'sse';

export async function serveExpressMcp(config: object, env: Record<string, string>): Promise<McpApp> {
  const decisions: AuthDecision[] = [];
  const ran: McpApp['ran'] = [];
  const auth = await createAuthMiddleware(config, {
    env,
    logger: createCaptureLogger(),
    onDecision: (decision) => decisions.push(decision),
  });
  const app = express();
  app.use(auth.access);
  app.post('/mcp', async (req, res) => {
    const enableJsonResponse = jsonAnswer(req.get('x-answer'));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
    const server = mcpServer(ran);
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    decisions,
    ran,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await auth.close();
    },
  };
}

export async function serveHonoMcp(config: object, env: Record<string, string>): Promise<McpApp> {
  const decisions: AuthDecision[] = [];
  const ran: McpApp['ran'] = [];
  const served = await serveHono(
    { config, env, logger: createCaptureLogger(), onDecision: (decision) => decisions.push(decision) },
    (app) => {
      app.post('/mcp', async (c) => {
        const enableJsonResponse = jsonAnswer(c.req.header('x-answer'));
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse,
        });
        await mcpServer(ran).connect(transport);
        return transport.handleRequest(c.req.raw, { authInfo: c.get('auth') });
      });
    },
  );
  return { url: served.url, decisions, ran, close: () => served.close() };
}

/** What a client read off the wire. */
export interface Wire {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * One request over a fresh connection, with the headers exactly as given (`Host` included, which
 * `fetch` will not send as written).
 */
export async function send(
  base: string,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Wire> {
  const { hostname, port } = new URL(base);
  const req = httpRequest({
    host: hostname,
    port,
    method: options.method,
    path: options.path,
    agent: false,
    headers: { connection: 'close', ...options.headers },
  });
  req.end(options.body);
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  let body = '';
  res.setEncoding('utf8');
  for await (const chunk of res) body += chunk as string;
  return { status: res.statusCode ?? 0, headers: res.headers, body };
}

/** A decision without what differs between two runs of the same request (its id and duration). */
export function comparable(decision: AuthDecision) {
  const { durationMs: _duration, requestId: _id, ...rest } = decision;
  return rest;
}
