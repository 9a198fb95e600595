import type { AuthConfig } from '@authlayer/core';
import { pathOf } from '../request/path-of.js';

/** An MCP message of a case: `name` is the tool's or prompt's, `uri` a resource's. */
export interface PolicyMcpMessage {
  readonly method: string;
  readonly name?: string;
  readonly uri?: string;
  readonly arguments?: unknown;
}

/**
 * What a case sends: `request: "GET /reports/7?full=1"`, or an MCP message POSTed to
 * `mcp.endpoint`; `headers` are added (lower-cased names) to the caller's credential.
 */
export type PolicyRequest =
  | { readonly request: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly mcp: PolicyMcpMessage; readonly headers?: Readonly<Record<string, string>> };

/** A request a case cannot send to this config: the test file's fault (exit 3). */
export class RequestError extends Error {
  override readonly name = 'RequestError';
}

const LINE = /^([A-Z]{1,20}) (\/[\x21-\x7e]*)$/;

/** The HTTP request a case stands for: method, URL, path, headers, and the MCP body if any. */
export function shapeOf(input: PolicyRequest, config: AuthConfig) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (typeof value !== 'string') throw new RequestError(`headers.${name} must be a string`);
    headers[name.toLowerCase()] = value;
  }
  if ('request' in input) {
    const parts = typeof input.request === 'string' ? LINE.exec(input.request) : null;
    if (parts === null) throw new RequestError('request must be "METHOD /path", for example "GET /reports/7"');
    const [, method, url] = parts as unknown as [string, string, string];
    return { method, url, path: pathOf(url), headers, body: undefined, message: null };
  }
  const message = input.mcp as PolicyMcpMessage | null;
  if (config.mcp === null) throw new RequestError('an mcp case needs the config to have an mcp section');
  if (typeof message !== 'object' || message === null || typeof message.method !== 'string') {
    throw new RequestError('mcp must be { method, name, arguments } (or uri for resources)');
  }
  const params: Record<string, unknown> = {};
  if (message.name !== undefined) params.name = message.name;
  if (message.uri !== undefined) params.uri = message.uri;
  if (message.arguments !== undefined) params.arguments = message.arguments;
  const body = { jsonrpc: '2.0', id: 1, method: message.method, params };
  const name = typeof (message.uri ?? message.name) === 'string' ? ((message.uri ?? message.name) as string) : null;
  const path = config.mcp.endpoint;
  headers['content-type'] ??= 'application/json';
  headers.accept ??= 'application/json, text/event-stream';
  return { method: 'POST', url: path, path, headers, body, message: { method: message.method, name, params } };
}
