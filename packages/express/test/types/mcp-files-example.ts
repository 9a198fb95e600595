// Compiled by `typecheck` (strict), never run: the tenant-scoped file server of docs/mcp.md,
// verbatim between the markers (test/request-auth.http.test.ts keeps the two equal).
// docs:begin
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';

const ROOT = resolve('data'); // data/<tenant>/<path>

/** The files resource: authlayer has judged the message (the tenant is the caller's) before this runs. */
export function registerFiles(server: McpServer): void {
  const template = new ResourceTemplate('files://{tenant}/{+path}', { list: undefined });
  server.registerResource('file', template, { description: "a file of the caller's tenant" }, async (uri, vars) => {
    // {+path} may hold "/" and "..": the tenant is checked by authlayer, the path is yours to confine.
    const home = resolve(ROOT, String(vars.tenant));
    const file = resolve(home, String(vars.path));
    if (!file.startsWith(home + sep)) throw new Error('no such file');
    return { contents: [{ uri: uri.href, text: await readFile(file, 'utf8') }] };
  });
}
// docs:end
