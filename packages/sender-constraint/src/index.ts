export { createSenderConstraint } from './sender-constraint.js';
export { createModeSenderConstraint } from './mode-constraint.js';
export type {
  PresentedAs,
  SenderConstraint,
  SenderConstraintDeps,
  SenderConstraintSettings,
} from './sender-constraint.js';
export { checkDpopProof, MAX_JTI_CHARS, MAX_PROOF_CHARS } from './dpop-proof.js';
export type { CheckedProof, ProofExpectations, ProofFailure } from './dpop-proof.js';
export { createMemoryReplayCache, ReplayCacheFull } from './replay-cache.js';
export type { MemoryReplayCache, MemoryReplayCacheOptions } from './replay-cache.js';
export { normalizeHtu, requestTarget } from './request-target.js';
export { clientCertificateThumbprint } from './client-certificate.js';
