import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import { ADAPTERS, conformanceYaml, FULL_SCOPE, serveConformance, type Adapter } from './support/conformance-server.js';
import { runScenario, startTokenFront, type SuiteCheck } from './support/conformance-suite.js';

// The MCP conformance suite itself (@modelcontextprotocol/conformance, pinned), run as a child
// process against the fixture server behind each adapter, configured from YAML alone. Its
// registry build has one server scenario of MCP security, `dns-rebinding-protection`; the
// server-side auth scenarios are not in it (docs/design/mcp-conformance.md: what is run where).
// The suite sends no credential: a loopback front adds a token holding every scope, so the
// protocol scenarios below show an authorized client getting through authlayer unchanged.

/** The scenarios run and the checks each reports, every one of which must be SUCCESS. */
const SCENARIOS: Readonly<Record<string, readonly string[]>> = {
  'dns-rebinding-protection': ['localhost-host-rebinding-rejected', 'localhost-host-valid-accepted'],
  'server-initialize': ['server-initialize'],
  ping: ['ping'],
  'tools-list': ['tools-list'],
  'tools-call-simple-text': ['tools-call-simple-text'],
  'resources-read-text': ['resources-read-text'],
  'resources-templates-read': ['resources-templates-read'],
  'prompts-get-simple': ['prompts-get-simple'],
};

let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startTestIdentityProvider();
});
afterAll(async () => idp.close());

const statuses = (checks: readonly SuiteCheck[]) => checks.map((check) => `${check.id}: ${check.status}`);

/** The fixture behind `adapter`, reached through a token-adding front whose URL is the resource. */
async function behindFront(adapter: Adapter, mcp = '') {
  const front = await startTokenFront();
  const identifier = `${front.origin}/mcp`;
  const server = await serveConformance(adapter, conformanceYaml(idp, identifier, mcp));
  const token = await idp.signToken({ sub: 'conformance', aud: identifier, scope: FULL_SCOPE });
  front.route(server.origin, `Bearer ${token}`);
  return {
    url: identifier,
    close: async () => {
      await front.close();
      await server.close();
    },
  };
}

describe.each(ADAPTERS)('the MCP conformance suite against the fixture server on %s', (adapter) => {
  it(`passes every check of ${Object.keys(SCENARIOS).join(', ')}`, async () => {
    const served = await behindFront(adapter);
    try {
      for (const [scenario, ids] of Object.entries(SCENARIOS)) {
        const run = await runScenario(served.url, scenario);
        const scored = run.checks.filter((check) => check.status !== 'INFO');
        expect({ scenario, checks: statuses(scored) }).toEqual({
          scenario,
          checks: ids.map((id) => `${id}: SUCCESS`),
        });
        expect(run.exitCode).toBe(0);
      }
    } finally {
      await served.close();
    }
  }, 600_000);

  it('fails the rebinding check when the Host and Origin checks are turned off (the run can fail)', async () => {
    const served = await behindFront(adapter, '  allowed_hosts: ["*"]\n  allowed_origins: ["*"]');
    try {
      const run = await runScenario(served.url, 'dns-rebinding-protection');
      expect(statuses(run.checks)).toEqual([
        'localhost-host-rebinding-rejected: FAILURE',
        'localhost-host-valid-accepted: SUCCESS',
      ]);
      expect(run.exitCode).toBe(1);
    } finally {
      await served.close();
    }
  }, 300_000);
});
