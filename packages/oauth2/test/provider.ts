import { jest } from '@jest/globals';
import { parseAuthConfig, type AuthConfig } from '@authlayer/core';
import {
  createCaptureLogger,
  startOpaqueTokenProvider,
  type CaptureLogger,
  type OpaqueTokenProvider,
} from '@authlayer/testkit';
import { createOAuth2Handler } from '../src/oauth2-handler.js';

/** Starts the real opaque-token provider, hiding oidc-provider's development warnings. */
export async function startProvider(): Promise<OpaqueTokenProvider> {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    return await startOpaqueTokenProvider();
  } finally {
    warn.mockRestore();
    log.mockRestore();
  }
}

/** The roles section of every test config. */
export const ROLES = [{ name: 'reporter', permissions: ['reports:read', 'invoke'] }];

/** An oauth2 config for `provider`, its basic client by default; `fields` on top. */
export function oauth2Config(provider: OpaqueTokenProvider, fields: Record<string, unknown> = {}): AuthConfig {
  return parseAuthConfig({
    auth: {
      mode: 'oauth2',
      oauth2: {
        introspection_url: provider.introspectionEndpoint,
        client_id: provider.clients.basic.id,
        claims: { user_id: 'client_id', roles: 'realm_access.roles', tenant_id: 'org.id' },
        ...fields,
      },
    },
    roles: ROLES,
  });
}

/** A handler with a pinned clock that a test moves by hand. */
export async function handlerFor(config: AuthConfig, secret: string, start = Date.now()) {
  const clock = { now: start };
  const logger: CaptureLogger = createCaptureLogger();
  const handler = await createOAuth2Handler(config, {
    env: { OAUTH2_CLIENT_SECRET: secret },
    logger,
    now: () => clock.now,
  });
  const authenticate = (token: string) => handler.authenticate({ headers: { authorization: `Bearer ${token}` } });
  return { handler, authenticate, clock, logger };
}
