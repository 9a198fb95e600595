export { createCaptureLogger } from './capture-logger.js';
export type { CaptureLogger, LogLine } from './capture-logger.js';
export { startJwksServer } from './jwks-server.js';
export type { JwksServer, JwksServerMode, JwksServerOptions } from './jwks-server.js';
export { startLoopbackServer } from './loopback-server.js';
export type { LoopbackServer } from './loopback-server.js';
export { forgeToken, mintToken, signRaw } from './mint-token.js';
export type { ExtraHeader } from './mint-token.js';
export { startRecordingServer } from './recording-server.js';
export type { RecordingServer } from './recording-server.js';
export { createSigningKey } from './signing-key.js';
export type { SigningKey } from './signing-key.js';
export { OIDC_RESOURCE, startOidcProvider } from './oidc-provider.js';
export { startOpaqueTokenProvider } from './opaque-token-provider.js';
export { startIntrospectionServer } from './introspection-server.js';
export type { IntrospectionServer, IntrospectionServerOptions, OpaqueTokenOptions } from './introspection-server.js';
export { startTestIdentityProvider } from './test-identity-provider.js';
export type { RawConfig, SignTokenOptions, TestIdentityProvider } from './test-identity-provider.js';
export type {
  IntrospectionClientCredentials,
  IntrospectionMode,
  OpaqueTokenProvider,
} from './opaque-token-provider.js';
export type { OidcClient, OidcProvider, TokenBinding } from './oidc-provider.js';
export { createDpopKey, signDpopProof } from './dpop-key.js';
export type { DpopKey, DpopProofOptions } from './dpop-key.js';
export { TEST_CERTIFICATE_HEADER } from './client-credentials.js';
export { expectedContext } from './expected-context.js';
export type { ContextJson } from './expected-context.js';
export { openRawConnection } from './raw-connection.js';
export type { RawConnection, RawResponse } from './raw-connection.js';
export { freePort } from './free-port.js';
export { startRedis } from './redis-server.js';
export type { RedisServer, RedisServerOptions } from './redis-server.js';
export { captureLogLines } from './capture-log-lines.js';
export type { LogLineCapture } from './capture-log-lines.js';
export { createTestCertificates } from './test-certificates.js';
export type { CertificatePair, TestCertificates } from './test-certificates.js';
