import { isConfigError, parseYaml } from '@authlayer/core';
import { readFile } from 'node:fs/promises';
import type { PolicyMcpMessage, PolicyRequest } from './policy-request.js';
import type { VerifiedCaller } from './verified-callers.js';

/** One case of a test file: who, what, and the answer it expects. */
export interface PolicyCase {
  /** `name` as written, else `#<n> <caller> <request>`: what a failure line names. */
  readonly name: string;
  readonly as: string;
  readonly caller: VerifiedCaller;
  readonly request: PolicyRequest;
  readonly expect: { readonly status: number; readonly reason?: string };
}

/** A test file, read and checked: its path and its cases. */
export interface PolicyTestFile {
  readonly file: string;
  readonly cases: readonly PolicyCase[];
}

/** A test file that cannot be read or says something the runner cannot run (exit 3). */
export class PolicyTestFileError extends Error {
  override readonly name = 'PolicyTestFileError';
}

const CASE_FIELDS = new Set(['name', 'as', 'request', 'mcp', 'headers', 'expect']);

/**
 * Reads a test file: `callers` (name → `{ api_key: <key name> }`, `{ jwt: <claims> }`,
 * `{ oauth2: <claims> }` or `anonymous`) and `cases` (`as`, `request` or `mcp`, `expect`).
 *
 * @throws PolicyTestFileError naming the file and the field
 */
export async function readPolicyTestFile(file: string): Promise<PolicyTestFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new PolicyTestFileError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text, file);
  } catch (error) {
    throw new PolicyTestFileError(isConfigError(error) ? error.issues[0]!.message : `${file}: not valid YAML`);
  }
  return { file, cases: casesOf(raw, (why) => new PolicyTestFileError(`${file}: ${why}`)) };
}

/** The cases of a parsed test file; `fail` makes the error of a field. */
export function casesOf(raw: unknown, fail: (why: string) => Error): PolicyCase[] {
  if (!isObject(raw)) throw fail('must be a mapping with callers and cases');
  const unknown = Object.keys(raw).find((key) => key !== 'callers' && key !== 'cases');
  if (unknown !== undefined) throw fail(`${unknown.slice(0, 40)}: unknown field (callers, cases)`);
  const callers = raw.callers ?? {};
  if (!isObject(callers)) throw fail('callers must map names to callers');
  if (!Array.isArray(raw.cases) || raw.cases.length === 0) throw fail('cases must be a non-empty list');
  return raw.cases.map((entry: unknown, index) => {
    const at = `cases[${index}]`;
    if (!isObject(entry)) throw fail(`${at} must be a mapping`);
    const field = Object.keys(entry).find((key) => !CASE_FIELDS.has(key));
    if (field !== undefined) throw fail(`${at}.${field.slice(0, 40)}: unknown field`);
    const as = entry.as;
    if (typeof as !== 'string' || !Object.hasOwn(callers, as)) throw fail(`${at}.as: names no caller of callers`);
    const request = requestOf(entry, at, fail);
    return {
      name: typeof entry.name === 'string' ? entry.name : `#${index + 1} ${as} ${describe(request)}`,
      as,
      caller: callers[as] as VerifiedCaller,
      request,
      expect: expectOf(entry.expect, `${at}.expect`, fail),
    };
  });
}

function requestOf(entry: Record<string, unknown>, at: string, fail: (why: string) => Error): PolicyRequest {
  const headers = entry.headers === undefined ? {} : entry.headers;
  if (!isObject(headers)) throw fail(`${at}.headers must map header names to strings`);
  const given = ['request', 'mcp'].filter((field) => entry[field] !== undefined);
  if (given.length !== 1) throw fail(`${at}: give one of request and mcp`);
  if (entry.request !== undefined) {
    if (typeof entry.request !== 'string') throw fail(`${at}.request must be "METHOD /path"`);
    return { request: entry.request, headers: headers as Record<string, string> };
  }
  if (!isObject(entry.mcp)) throw fail(`${at}.mcp must be { method, name, arguments }`);
  return { mcp: entry.mcp as unknown as PolicyMcpMessage, headers: headers as Record<string, string> };
}

function expectOf(value: unknown, at: string, fail: (why: string) => Error): PolicyCase['expect'] {
  const status = isObject(value) ? value.status : value;
  const reason = isObject(value) ? value.reason : undefined;
  if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) {
    throw fail(`${at} must be a status, or { status, reason }`);
  }
  if (reason !== undefined && typeof reason !== 'string') throw fail(`${at}.reason must be a string`);
  if (isObject(value) && Object.keys(value).some((key) => key !== 'status' && key !== 'reason')) {
    throw fail(`${at} lists only status and reason`);
  }
  return reason === undefined ? { status: status as number } : { status: status as number, reason };
}

/** How a case's request reads in its name: `GET /reports/7`, `MCP tools/call delete_file`. */
export function describe(request: PolicyRequest): string {
  if ('request' in request) return request.request;
  const { method, name, uri } = request.mcp;
  return `MCP ${method}${typeof (uri ?? name) === 'string' ? ` ${uri ?? name}` : ''}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
