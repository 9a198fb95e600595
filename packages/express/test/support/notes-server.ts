import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The step-up tests' tools: each answers "<name> ok". */
export const NOTES_TOOLS = ['read_notes', 'get_forecast'] as const;

/**
 * `POST /mcp` of the step-up tests: a stateless SDK server per request, given Node's request and
 * response (Express's own, or Fastify's `request.raw` and `reply.raw`) and the parsed body.
 */
export async function serveNotes(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const mcp = new McpServer({ name: 'notes', version: '1.0.0' });
  for (const name of NOTES_TOOLS) {
    mcp.registerTool(name, { description: name }, () => ({ content: [{ type: 'text', text: `${name} ok` }] }));
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void transport.close().then(() => mcp.close()));
  await mcp.connect(transport);
  await transport.handleRequest(req, res, body);
}
