import { z } from 'zod';
import { DEFAULTS, DPOP_ALGORITHMS, type DpopAlgorithm } from '../defaults.js';

// The fields of `auth.jwt` and `auth.oauth2` that bind a token to its sender: DPoP (RFC 9449) and
// certificate-bound tokens (RFC 8705).

/** `off`: as before (a `cnf` claim is ignored); `allowed`: a bound token must prove it; `required`: every token must. */
export type ConstraintMode = 'off' | 'allowed' | 'required';
const CONSTRAINT_MODES = ['off', 'allowed', 'required'] as const satisfies readonly ConstraintMode[];

/** The schema fields, spread into a mode's section. */
export const senderConstraintFields = {
  dpop: z.enum(CONSTRAINT_MODES).default(DEFAULTS.senderConstraint.dpop),
  dpop_algorithms: z
    // Asymmetric only (RFC 9449 §4.3): `none` and HS* are not among them.
    .array(z.enum(DPOP_ALGORITHMS))
    .min(1, 'must list at least one algorithm')
    .default([...DEFAULTS.senderConstraint.dpopAlgorithms]),
  certificate_bound: z.enum(CONSTRAINT_MODES).default(DEFAULTS.senderConstraint.certificateBound),
};

/** How a mode's tokens are bound to their sender. */
export interface SenderConstraintConfig {
  /** DPoP proofs (`Authorization: DPoP`, RFC 9449). Default `off`. */
  readonly dpop: ConstraintMode;
  /** The algorithms a DPoP proof may be signed with; asymmetric only. Default ES256, RS256, PS256, EdDSA, Ed25519. */
  readonly dpopAlgorithms: readonly DpopAlgorithm[];
  /** Tokens bound to the client's TLS certificate (`cnf["x5t#S256"]`, RFC 8705). Default `off`. */
  readonly certificateBound: ConstraintMode;
}

type RawFields = { [K in keyof typeof senderConstraintFields]: z.output<(typeof senderConstraintFields)[K]> };

/** The fields in camelCase. */
export function toSenderConstraintConfig(raw: RawFields): SenderConstraintConfig {
  return {
    dpop: raw.dpop,
    dpopAlgorithms: [...new Set(raw.dpop_algorithms)],
    certificateBound: raw.certificate_bound,
  };
}
