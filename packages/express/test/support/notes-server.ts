import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';

/** The step-up tests' tools: each answers "<name> ok". */
export const NOTES_TOOLS = ['read_notes', 'get_forecast'] as const;

/** `POST /mcp` of the step-up tests: a stateless SDK server per request, `req` handed over as it is. */
export async function serveNotes(req: Request, res: Response): Promise<void> {
  const mcp = new McpServer({ name: 'notes', version: '1.0.0' });
  for (const name of NOTES_TOOLS) {
    mcp.registerTool(name, { description: name }, () => ({ content: [{ type: 'text', text: `${name} ok` }] }));
  }
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void transport.close().then(() => mcp.close()));
  await mcp.connect(transport);
  await transport.handleRequest(req, res, req.body);
}
