import {
  AUTH_FAILURE_DESCRIPTION,
  parseAuthConfig,
  type AuthConfig,
  type AuthFailure,
  type AuthHandler,
} from '@authlayer/core';
import { createCaptureLogger, mintToken, type CaptureLogger, type SigningKey } from '@authlayer/testkit';
import type { JWTPayload } from 'jose';
import { jwtOf, type JwtConfig } from '../src/config/jwt-section.js';
import { createJwtHandler, type JwtHandlerDeps } from '../src/index.js';

/** The pinned clock of every test, in seconds since the epoch (2027-01-15). */
export const NOW = 1_800_000_000;
export const now = (): number => NOW * 1000;

/** A pinned clock that a test moves by hand. */
export interface Clock {
  readonly now: () => number;
  advance(seconds: number): void;
}

/** A {@link Clock} starting at {@link NOW}. */
export function createClock(start = NOW * 1000): Clock {
  let ms = start;
  return { now: () => ms, advance: (seconds) => void (ms += seconds * 1000) };
}

/** A checked config in JWT mode, through core's parser as a user's YAML would go. */
export function jwtConfig(jwt: Record<string, unknown>, roles: unknown[] = []): AuthConfig {
  return parseAuthConfig({ auth: { mode: 'jwt', jwt }, roles });
}

/** `auth.jwt` of {@link jwtConfig} as the handler reads it: checked and converted by this package. */
export function jwtSettings(jwt: Record<string, unknown>): JwtConfig {
  return jwtOf(jwtConfig(jwt), {});
}

/** A request carrying `Authorization: Bearer <token>`. */
export const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

/** What every refusal looks like, with the exact RFC 6750 challenge. */
export function failure(reason: AuthFailure) {
  const challenge =
    reason === 'credentials_missing'
      ? 'Bearer realm="authlayer"'
      : `Bearer realm="authlayer", error="invalid_token", error_description="${AUTH_FAILURE_DESCRIPTION[reason]}"`;
  return { name: 'AuthError', code: 'unauthorized', status: 401, reason, challenge };
}

/** Claims valid at {@link NOW}: issued now, expiring in 5 minutes. */
export const validClaims = (extra: JWTPayload = {}): JWTPayload => ({
  sub: 'user-1',
  iat: NOW,
  exp: NOW + 300,
  ...extra,
});

export interface StaticSetup {
  readonly handler: AuthHandler;
  readonly logger: CaptureLogger;
  /** A token signed by the key with {@link validClaims} plus `extra`. */
  readonly token: (extra?: JWTPayload) => Promise<string>;
}

/**
 * Forgets what a handler logged at start-up (the warning of a config without issuer or audience,
 * see open-claims-warning.test.ts), so a test sees only the lines of its requests.
 */
export function forgetStartUpLines(logger: CaptureLogger): void {
  logger.lines.length = 0;
}

/** A handler trusting `key` through `public_key_env: JWT_KEY`, clock pinned at {@link NOW}. */
export async function staticHandler(
  key: SigningKey,
  jwt: Record<string, unknown> = {},
  deps: Partial<JwtHandlerDeps> = {},
): Promise<StaticSetup> {
  const logger = createCaptureLogger();
  const config = jwtConfig({ public_key_env: 'JWT_KEY', algorithms: [key.alg], ...jwt });
  const handler = await createJwtHandler(config, { env: { JWT_KEY: key.envValue }, logger, now, ...deps });
  forgetStartUpLines(logger);
  return { handler, logger, token: (extra) => mintToken(key, validClaims(extra)) };
}

/** A handler trusting the key set at `url`, clock pinned at {@link NOW}, short fetch timeout. */
export async function jwksHandler(
  url: string,
  jwt: Record<string, unknown> = {},
  jwks: JwtHandlerDeps['jwks'] = { timeoutMs: 2000 },
  clock: () => number = now,
): Promise<{ handler: AuthHandler; logger: CaptureLogger }> {
  const logger = createCaptureLogger();
  const handler = await createJwtHandler(jwtConfig({ jwks_url: url, ...jwt }), { env: {}, logger, now: clock, jwks });
  forgetStartUpLines(logger);
  return { handler, logger };
}
