import type { PolicyRequest, PolicyTestReport, PolicyVerdict } from '@authlayer/express';

/** One line per failed case, the summary line, then (with `coverage`) one line per key no case reached. */
export function formatReport(report: PolicyTestReport, coverage: boolean): string {
  const lines = report.failures.map((failure) => `FAIL ${failure.message}`);
  const failed = report.failures.length;
  const files = `${report.files} file${report.files === 1 ? '' : 's'}`;
  lines.push(
    failed === 0
      ? `${report.cases} cases in ${files}: all passed`
      : `${report.cases} cases in ${files}: ${failed} failed, ${report.cases - failed} passed`,
  );
  if (coverage) {
    lines.push(
      report.unreached.length === 0
        ? 'coverage: every key was reached'
        : `coverage: ${report.unreached.length} keys no case reached`,
    );
    for (const key of report.unreached) lines.push(`  not reached: ${key}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Every key that applied, in order, with its verdict and deciding field, then the answer. */
export function formatExplanation(caller: string, request: PolicyRequest, verdict: PolicyVerdict): string {
  const what = 'request' in request ? request.request : `MCP ${JSON.stringify(request.mcp)}`;
  const lines = [`${what} as ${caller}`];
  for (const entry of verdict.trace) {
    const reason = entry.reason === null ? '' : ` (${entry.reason})`;
    lines.push(`  ${entry.key}: ${entry.verdict}, ${entry.field}${reason}`);
  }
  const by = verdict.key === null ? '' : ` by ${verdict.key}`;
  lines.push(`answer: ${verdict.status}${verdict.reason === null ? '' : ` ${verdict.reason}`}${by}`);
  if (verdict.wouldRefuse !== null) {
    lines.push(`report_only: would refuse ${verdict.wouldRefuse.reason} by ${verdict.wouldRefuse.key ?? 'the table'}`);
  }
  lines.push(`challenge: ${verdict.challenge ?? 'none'}`);
  return `${lines.join('\n')}\n`;
}
