import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';

// The glue docs/mcp.md shows ("The SDK's client and step-up"), for the SDK 1.x client.

/**
 * The SDK's client_credentials provider, for the provider's client (registered for
 * client_secret_post). SDK 1.32 re-runs its auth flow on `insufficient_scope` but asks for the
 * client's configured scope (`fetchToken` reads `clientMetadata.scope`): the challenged scope is
 * supplied here.
 */
export class StepUpProvider extends ClientCredentialsProvider {
  challenged: string | undefined;
  lastChallenge: string | undefined;
  override clientInformation() {
    return { ...super.clientInformation(), token_endpoint_auth_method: 'client_secret_post' };
  }
  override prepareTokenRequest(scope?: string) {
    return super.prepareTokenRequest(this.challenged ?? scope);
  }
}

/**
 * The transport's fetch: a 403 `insufficient_scope` names the scopes the operation needs (MCP
 * 2026-07-28, SEP-2350); the provider asks for them added to those its token already has
 * (`replace: true`: the challenge alone, as a client that replaces its scope list would).
 */
export function learnChallenges(provider: StepUpProvider, replace = false): typeof fetch {
  return async (url, init) => {
    const response = await fetch(url, init);
    const { error, scope } = extractWWWAuthenticateParams(response);
    if (response.status === 403 && error === 'insufficient_scope' && scope !== undefined) {
      const held = replace ? [] : (provider.tokens()?.scope?.split(' ') ?? []);
      provider.challenged = [...new Set([...held, ...scope.split(' ')])].join(' ');
      provider.lastChallenge = scope;
    }
    return response;
  };
}
