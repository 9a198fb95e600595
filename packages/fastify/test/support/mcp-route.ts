import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A Fastify route handler that hands the request to the official SDK's transport (stateless, JSON
 * answers, a server per request) with two tools, `get_forecast` and `delete_file`; each tool that
 * runs is recorded in `ran`.
 */
export function mcpRoute(ran: string[]) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const server = new McpServer({ name: 'edges', version: '1.0.0' });
    for (const tool of ['get_forecast', 'delete_file']) {
      server.registerTool(tool, { description: tool }, () => {
        ran.push(tool);
        return { content: [{ type: 'text', text: tool }] };
      });
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  };
}

/** A JSON-RPC `tools/call` of `name`. */
export const toolCall = (name: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

/** MCP's `initialize`, as the conformance suite's DNS-rebinding scenario sends it. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'edges', version: '1.0.0' } },
});

/** The headers of an MCP client's POST. */
export const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
