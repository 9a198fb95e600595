// Compiled by `typecheck` (strict), never run: the SDK 1.x client's step-up of docs/mcp.md, verbatim
// between the markers (test/request-auth.http.test.ts keeps the two equal); the tests run the same
// glue (test/support/mcp-step-up.ts) against a real OpenID provider.
// docs:begin
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** Asks for the challenged scopes, added to those held, in the token request of a step-up. */
class StepUpProvider extends ClientCredentialsProvider {
  challenged: string | undefined;
  override prepareTokenRequest(scope?: string) {
    return super.prepareTokenRequest(this.challenged ?? scope);
  }
}

/** The transport's fetch: learns each insufficient_scope challenge before the SDK acts on it. */
function learnChallenges(provider: StepUpProvider): typeof fetch {
  return async (url, init) => {
    const response = await fetch(url, init);
    const { error, scope } = extractWWWAuthenticateParams(response);
    if (response.status === 403 && error === 'insufficient_scope' && scope !== undefined) {
      const held = provider.tokens()?.scope?.split(' ') ?? [];
      provider.challenged = [...new Set([...held, ...scope.split(' ')])].join(' ');
    }
    return response;
  };
}

const provider = new StepUpProvider({
  clientId: 'notes-agent',
  clientSecret: process.env.CLIENT_SECRET!,
  expectedIssuer: 'https://idp.example.com', // credentials go to this authorization server only
  scope: 'read',
});
const client = new Client({ name: 'notes-client', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL('https://mcp.example.com/mcp'), {
    authProvider: provider,
    fetch: learnChallenges(provider),
  }),
);
await client.callTool({ name: 'read_notes', arguments: {} }); // token: read
await client.callTool({ name: 'get_forecast', arguments: {} }); // 403 scope="weather:read"; token: read weather:read
await client.callTool({ name: 'read_notes', arguments: {} }); // no new token
// docs:end

export {};
