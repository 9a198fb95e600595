import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_FAILURE_CAUSE, AUTH_FAILURE_DESCRIPTION, describeForbidden } from '@authlayer/core';
import type { AuthFailure, ForbiddenReason } from '@authlayer/core';
import type { ErrorCode } from '@authlayer/express';
import { REPO_ROOT } from '../scripts/pack.mjs';

// docs/errors.md is the one table a client developer or an operator reads a refusal in: it must
// name every code and reason the packages can send, with the sentence they send, and no other.

const PAGE = readFileSync(join(REPO_ROOT, 'docs/errors.md'), 'utf8');

// Typed records: a code or reason added to the packages fails typecheck here until it is listed.
const CODES: Record<ErrorCode, true> = {
  unauthorized: true,
  forbidden: true,
  invalid_request: true,
  unsupported_media_type: true,
  payload_too_large: true,
  not_found: true,
  rate_limited: true,
  internal: true,
};
const FORBIDDEN: Record<ForbiddenReason, true> = {
  permission_missing: true,
  scope_missing: true,
  role_missing: true,
  tenant_mismatch: true,
  claim_mismatch: true,
  param_mismatch: true,
  route_denied: true,
};
const DECISION_REASONS = ['too_many_failures', 'too_many_requests', 'handler_failed'];

/** The rows of the table under `## heading`, as arrays of cells. */
function rowsOf(heading: string): (readonly [string, string, string])[] {
  const start = PAGE.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`docs/errors.md has no section "${heading}"`);
  const end = PAGE.indexOf('\n## ', start + 1);
  return PAGE.slice(start, end === -1 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.slice(1, -1).split(' | ');
      return [cells[0]?.trim() ?? '', cells[1]?.trim() ?? '', cells[2]?.trim() ?? ''] as const;
    });
}

const named = (rows: readonly (readonly string[])[]) =>
  rows.map(([first]) => (first ?? '').replace(/`/g, '').split(' / ')[0]);

describe('docs/errors.md', () => {
  it('lists every error code, with the status it is sent with', () => {
    const rows = rowsOf("Codes (the body's `error`)");
    expect(named(rows).sort()).toEqual(Object.keys(CODES).sort());
    const status = Object.fromEntries(rows.map(([code, status]) => [code.replace(/`/g, ''), Number(status)]));
    expect(status).toMatchObject({ unauthorized: 401, forbidden: 403, rate_limited: 429, internal: 500 });
  });

  it('lists every 401 reason with the message and the cause the packages use', () => {
    const rows = rowsOf('401 reasons');
    expect(named(rows).sort()).toEqual(Object.keys(AUTH_FAILURE_DESCRIPTION).sort());
    for (const [reason, message, cause] of rows) {
      const key = reason.replace(/`/g, '') as AuthFailure;
      expect({ key, message, cause }).toEqual({
        key,
        message: AUTH_FAILURE_DESCRIPTION[key],
        cause: AUTH_FAILURE_CAUSE[key],
      });
    }
  });

  it('lists every 403 reason with the sentence it is sent with', () => {
    const rows = rowsOf('403 reasons');
    expect(named(rows).sort()).toEqual(Object.keys(FORBIDDEN).sort());
    for (const [reason, message] of rows) {
      const key = reason.replace(/`/g, '') as ForbiddenReason;
      expect({ key, message: message.replace('<names>', 'x') }).toEqual({
        key,
        message: describeForbidden(key, ['x']),
      });
    }
  });

  it('explains the reasons a decision has besides refusals', () => {
    const listed = [...named(rowsOf('429 reasons')), ...rowsOf('Decisions that are not refusals').map(([c]) => c)];
    for (const reason of DECISION_REASONS) expect(listed.join(' ')).toContain(reason);
  });
});
