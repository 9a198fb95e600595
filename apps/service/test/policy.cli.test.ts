import { describe, expect, it } from '@jest/globals';
import { writeConfig, runToExit, expectOneLineFailure } from './cli.js';

// `authlayer test` and `authlayer explain` on the built binary: exit codes 0 / 4 / 3, one line per
// failed case, one stderr line for an invalid config or test file. No secret anywhere: the callers
// are taken as verified (the key's variable is unset on purpose).
const CONFIG = writeConfig(`
auth:
  mode: api_key
  api_keys:
    keys:
      - { name: reader, env_var: READER_API_KEY, roles: [reader] }
      - { name: admin, env_var: ADMIN_API_KEY, roles: [admin] }
access:
  "GET /reports/:id": { roles: [admin] }
  "GET /health": public
  "DELETE /reports/:id": deny
`);
const PASSING = writeConfig(`
callers:
  reader: { api_key: reader }
  admin: { api_key: admin }
  nobody: anonymous
cases:
  - { as: reader, request: "GET /reports/7", expect: { status: 403, reason: role_missing } }
  - { as: admin, request: "GET /reports/7", expect: 200 }
  - { as: nobody, request: "GET /health", expect: 200 }
`);
const FAILING = writeConfig(`
callers: { reader: { api_key: reader } }
cases:
  - { name: reader reads, as: reader, request: "GET /reports/7", expect: 200 }
  - { as: reader, request: "GET /health", expect: 200 }
`);

describe('authlayer test', () => {
  it('exits 0 when every case passes, with a summary line, and lists unreached keys with --coverage', async () => {
    const result = await runToExit(['test', '--config', CONFIG, '--coverage', PASSING]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      '3 cases in 1 file: all passed\ncoverage: 1 keys no case reached\n  not reached: DELETE /reports/:id\n',
    );
  });

  it('exits 4 and names the file, the case and what differed', async () => {
    const result = await runToExit(['test', '--config', CONFIG, FAILING]);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe(
      `FAIL ${FAILING}: reader reads: expected 200, got 403 role_missing (by GET /reports/:id)\n` +
        '2 cases in 1 file: 1 failed, 1 passed\n',
    );
  });

  it.each([
    ['a test file that does not exist', () => ['test', '--config', CONFIG, '/nonexistent/cases.yaml'], 'cases.yaml'],
    [
      'an invalid config',
      () => ['test', '--config', writeConfig('access: { "GET /x": { role: [a] } }'), PASSING],
      'access',
    ],
    [
      'a caller the config lacks',
      () => ['test', '--config', writeConfig('auth: { mode: api_key }'), PASSING],
      'callers.reader',
    ],
    ['no test file', () => ['test', '--config', CONFIG], 'test file'],
  ])('exits 3 with one stderr line for %s', async (_what, args, mentions) => {
    const result = await runToExit(args());
    expect(result.code).toBe(3);
    expectOneLineFailure(result, mentions);
  });
});

describe('authlayer explain', () => {
  it('prints every key that applied, its verdict and field, then the answer', async () => {
    const result = await runToExit(['explain', '--config', CONFIG, '--as', 'api_key:reader', 'GET /reports/7']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'GET /reports/7 as api_key:reader\n' +
        '  GET /reports/:id: refuse, roles (role_missing)\n' +
        'answer: 403 role_missing by GET /reports/:id\n' +
        'challenge: none\n',
    );
  });

  it('exits 3 for a caller it cannot read', async () => {
    const result = await runToExit(['explain', '--config', CONFIG, '--as', 'root', 'GET /reports/7']);
    expect(result.code).toBe(3);
    expectOneLineFailure(result, '--as');
  });
});

describe('authlayer explain --mcp', () => {
  const mcpConfig = writeConfig(`
auth:
  mode: api_key
  api_keys:
    keys: [{ name: reader, env_var: READER_API_KEY }, { name: admin, env_var: ADMIN_API_KEY, roles: [admin] }]
mcp: { endpoint: /mcp, filter_lists: true }
access:
  "POST /mcp": authenticated
  "MCP tools/call admin_*": { roles: [admin] }
  "MCP tools/call edit_file": { params: { "arguments.mode": [read, list] } }
  "MCP tools/call *": deny
`);
  const explain = (caller: string, message: object) =>
    runToExit(['explain', '--config', mcpConfig, '--as', caller, '--mcp', JSON.stringify(message)]);

  it('names the pattern key that applied, and params as the field that refused', async () => {
    const write = await explain('api_key:admin', {
      method: 'tools/call',
      name: 'edit_file',
      arguments: { mode: 'write' },
    });
    expect(write.code).toBe(0);
    expect(write.stdout).toBe(
      'MCP {"method":"tools/call","name":"edit_file","arguments":{"mode":"write"}} as api_key:admin\n' +
        '  POST /mcp: allow, authenticated\n' +
        '  MCP tools/call edit_file: refuse, params (param_mismatch)\n' +
        'answer: 403 param_mismatch by MCP tools/call edit_file\n' +
        'challenge: none\n',
    );
    const read = await explain('api_key:admin', {
      method: 'tools/call',
      name: 'edit_file',
      arguments: { mode: 'read' },
    });
    expect(read.stdout).toContain('  MCP tools/call edit_file: allow, params\nanswer: 200\n');
    const admin = await explain('api_key:reader', { method: 'tools/call', name: 'admin_reset' });
    expect(admin.stdout).toContain('  MCP tools/call admin_*: refuse, roles (role_missing)\n');
  });
});
