import { parseAuthConfig } from '@authlayer/core';
import { captureLogLines, type LogLineCapture } from '@authlayer/testkit';
import { expect } from '@jest/globals';
import { createServiceLog } from '../src/logging.js';

/** The service's own pino logger for `config`, writing into a capture. */
export function capturedServiceLog(config: object, capture: LogLineCapture = captureLogLines()) {
  return {
    log: createServiceLog(parseAuthConfig(config), { level: 'info', format: 'json' }, capture.destination),
    capture,
  };
}

const AUDIT_FIELDS = ['outcome', 'method', 'reason', 'rule', 'userId', 'requestId', 'durationMs'];

/**
 * The contract's log rules over every captured line: JSON with `level`, `time` and `msg`; one
 * `auth` line per request to /invoke, with the audit fields; secret headers redacted; no secret anywhere.
 */
export function expectCleanLog(capture: LogLineCapture, secrets: readonly string[]) {
  const records = capture.records();
  for (const record of records) {
    expect(record).toEqual(
      expect.objectContaining({ level: expect.any(String), time: expect.any(Number), msg: expect.any(String) }),
    );
  }
  const audits = records.filter((record) => record.msg === 'auth');
  for (const audit of audits) expect(Object.keys(audit)).toEqual(expect.arrayContaining(AUDIT_FIELDS));
  const invokes = records.filter(
    (record) => record.msg === 'request completed' && (record.req as { url: string }).url === '/invoke',
  );
  expect(invokes.length).toBeGreaterThan(0);
  // One audit line per decision: each request to /invoke has exactly one, under its request id.
  for (const { req } of invokes) {
    const { id, headers } = req as { id: string; headers: Record<string, string> };
    expect(audits.filter((audit) => audit.requestId === id)).toHaveLength(1);
    for (const name of ['authorization', 'cookie', 'x-api-key', 'x-custom-key']) {
      if (name in headers) expect(headers[name]).toBe('[redacted]');
    }
  }
  const text = capture.lines.join('\n');
  for (const secret of secrets) {
    // Neither the secret as sent nor as JSON escapes it may appear.
    expect(text).not.toContain(secret);
    expect(text).not.toContain(JSON.stringify(secret).slice(1, -1));
  }
}
