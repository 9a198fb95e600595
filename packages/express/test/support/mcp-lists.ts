import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

// One fixture for `mcp.filter_lists` behind every adapter (packages/fastify/test imports it): the
// official SDK's McpServer with tools, prompts, resources and resource templates, one access table,
// and the lists each caller must see through the SDK's client, then the calls that agree with them.

/** The API keys of the two callers (test values). */
export const LIST_KEYS = { admin: 'admin-key-0123456789abcdef', plain: 'plain-key-0123456789abcdef' } as const;
export type ListCaller = keyof typeof LIST_KEYS;

/** The middleware's config: API keys, `mcp.filter_lists`, and keys with names, patterns and templates. */
export const LISTS_CONFIG = {
  auth: {
    mode: 'api_key',
    api_keys: {
      keys: [
        { name: 'admin', env_var: 'ADMIN_KEY', roles: ['admin'] },
        { name: 'plain', env_var: 'PLAIN_KEY' },
      ],
    },
  },
  mcp: { endpoint: '/mcp', filter_lists: true },
  access: {
    'POST /mcp': 'authenticated',
    'MCP tools/call get_forecast': 'authenticated',
    'MCP tools/call admin_*': { roles: ['admin'] },
    'MCP tools/call report': { scopes: ['reports:read'] },
    'MCP tools/call *': 'deny',
    'MCP prompts/get greeting': 'authenticated',
    'MCP prompts/get admin_*': { roles: ['admin'] },
    'MCP prompts/get *': 'deny',
    'MCP resources/read notes://public': 'authenticated',
    'MCP resources/read notes://admin/{id}': { roles: ['admin'] },
    'MCP resources/read files://{tenant}/{+path}': { scopes: ['files:{tenant}:read'] },
    'MCP resources/read *': 'deny',
  },
};

/** The env that holds the keys. */
export const LISTS_ENV = { ADMIN_KEY: LIST_KEYS.admin, PLAIN_KEY: LIST_KEYS.plain };

const TOOLS = ['get_forecast', 'admin_reset', 'admin_purge', 'report', 'secret'];
const PROMPTS = ['greeting', 'admin_digest', 'draft'];
const RESOURCES = ['notes://public', 'notes://admin/1', 'files://acme/readme.md', 'secret://keys'];
const TEMPLATES = ['notes://admin/{id}', 'files://{tenant}/{+path}', 'secret://{name}'];

function listsServer(): McpServer {
  const mcp = new McpServer({ name: 'lists', version: '1.0.0' });
  for (const name of TOOLS)
    mcp.registerTool(name, { description: name }, () => ({ content: [{ type: 'text', text: name }] }));
  for (const name of PROMPTS) {
    mcp.registerPrompt(name, { description: name }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: name } }],
    }));
  }
  const read = (uri: URL) => ({ contents: [{ uri: uri.href, text: uri.href }] });
  for (const uri of RESOURCES) mcp.registerResource(uri, uri, {}, read);
  for (const uri of TEMPLATES) mcp.registerResource(uri, new ResourceTemplate(uri, { list: undefined }), {}, read);
  return mcp;
}

/**
 * Hands one request to the SDK's stateless transport: JSON answers when the client sent
 * `x-answer: json`, SSE otherwise (a server and a transport per request, as the SDK's examples).
 */
export async function serveLists(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const enableJsonResponse = req.headers['x-answer'] === 'json';
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse });
  const mcp = listsServer();
  res.on('close', () => void transport.close().then(() => mcp.close()));
  await mcp.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** What a caller sees listed: each entry's name, with the scopes its `_meta` says a call needs. */
type Seen = Record<string, readonly string[] | null>;
const META = 'authlayer/scopes';

/** The lists each caller must see: exactly what it may call; scope-only refusals with their scopes. */
export const EXPECTED_LISTS: Record<ListCaller, Record<'tools' | 'prompts' | 'resources' | 'templates', Seen>> = {
  admin: {
    tools: { get_forecast: null, admin_reset: null, admin_purge: null, report: ['reports:read'] },
    prompts: { greeting: null, admin_digest: null },
    resources: { 'notes://public': null, 'notes://admin/1': null, 'files://acme/readme.md': ['files:acme:read'] },
    templates: { 'notes://admin/{id}': null, 'files://{tenant}/{+path}': ['files:{tenant}:read'] },
  },
  plain: {
    tools: { get_forecast: null, report: ['reports:read'] },
    prompts: { greeting: null },
    resources: { 'notes://public': null, 'files://acme/readme.md': ['files:acme:read'] },
    templates: { 'files://{tenant}/{+path}': ['files:{tenant}:read'] },
  },
};

const seen = (entries: { _meta?: Record<string, unknown> }[], name: (entry: never) => string): Seen =>
  Object.fromEntries(entries.map((entry) => [name(entry as never), (entry._meta?.[META] as string[]) ?? null]));

async function listed(client: Client) {
  const [tools, prompts, resources, templates] = await Promise.all([
    client.listTools(),
    client.listPrompts(),
    client.listResources(),
    client.listResourceTemplates(),
  ]);
  return {
    tools: seen(tools.tools, (entry: { name: string }) => entry.name),
    prompts: seen(prompts.prompts, (entry: { name: string }) => entry.name),
    resources: seen(resources.resources, (entry: { uri: string }) => entry.uri),
    templates: seen(templates.resourceTemplates, (entry: { uriTemplate: string }) => entry.uriTemplate),
  };
}

/** Every entry the server has, called: tools, prompts, resources, and one URI of each template. */
async function outcomes(client: Client): Promise<Record<string, string>> {
  const calls: [string, () => Promise<unknown>][] = [
    ...TOOLS.map((name) => [`tools ${name}`, () => client.callTool({ name })] as [string, () => Promise<unknown>]),
    ...PROMPTS.map((name) => [`prompts ${name}`, () => client.getPrompt({ name })] as [string, () => Promise<unknown>]),
    ...[...RESOURCES, 'notes://admin/7', 'files://acme/a/b.txt', 'secret://x'].map(
      (uri) => [`resources ${uri}`, () => client.readResource({ uri })] as [string, () => Promise<unknown>],
    ),
  ];
  const results: Record<string, string> = {};
  for (const [label, call] of calls) {
    // A refusal by authlayer is an HTTP 403 (the SDK's error carries the status), not a tool error.
    results[label] = await call().then(
      () => 'ok',
      (error: unknown) => `refused ${String((error as { code?: unknown }).code)}`,
    );
  }
  return results;
}

/** What a call must do for `caller`: allowed exactly where the list shows the entry without scopes. */
function expectedOutcomes(caller: ListCaller): Record<string, string> {
  const lists = EXPECTED_LISTS[caller];
  const free = (list: Seen, name: string) => (list[name] === null ? 'ok' : 'refused 403');
  // A URI of a template is judged as the template's own entry is (no URI here is also listed).
  const template = (of: string) => free(lists.templates, of);
  return {
    ...Object.fromEntries(TOOLS.map((name) => [`tools ${name}`, free(lists.tools, name)])),
    ...Object.fromEntries(PROMPTS.map((name) => [`prompts ${name}`, free(lists.prompts, name)])),
    ...Object.fromEntries(RESOURCES.map((uri) => [`resources ${uri}`, free(lists.resources, uri)])),
    'resources notes://admin/7': template('notes://admin/{id}'),
    'resources files://acme/a/b.txt': template('files://{tenant}/{+path}'),
    'resources secret://x': template('secret://{name}'),
  };
}

/**
 * The shared cases: for each caller and each answer form (JSON, SSE), the SDK's client lists tools,
 * prompts, resources and templates and sees exactly {@link EXPECTED_LISTS}, then calls every entry
 * the server has and is refused exactly where the list left it out or asked for scopes.
 */
export function describeFilteredLists(origin: () => string): void {
  async function clientFor(caller: ListCaller, answer: 'json' | 'sse'): Promise<Client> {
    const client = new Client({ name: 'lists-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${origin()}/mcp`), {
      requestInit: { headers: { 'x-api-key': LIST_KEYS[caller], 'x-answer': answer } },
    });
    await client.connect(transport);
    return client;
  }

  describe.each(['json', 'sse'] as const)('filtered lists through the SDK client (%s answers)', (answer) => {
    it.each(['admin', 'plain'] as const)(
      'shows %s exactly what it may call, with the scopes a call needs',
      async (caller) => {
        const client = await clientFor(caller, answer);
        try {
          expect(await listed(client)).toEqual(EXPECTED_LISTS[caller]);
        } finally {
          await client.close();
        }
      },
    );

    it.each(['admin', 'plain'] as const)('lets %s call exactly the entries listed without scopes', async (caller) => {
      const client = await clientFor(caller, answer);
      try {
        expect(await outcomes(client)).toEqual(expectedOutcomes(caller));
      } finally {
        await client.close();
      }
    });
  });
}
