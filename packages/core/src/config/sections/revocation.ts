import { z } from 'zod';
import { redisUrl } from '../fields.js';

// The top-level `revocation` section: a list of revoked tokens and subjects in Redis, which every
// replica copies and is told of changes to.

export const revocationSchema = z
  .strictObject({
    store: redisUrl,
  })
  .nullable()
  .default(null);

/** `revocation`: where the revocation list lives. */
export interface RevocationConfig {
  /** The Redis URL shared by every replica (`redis://host:port/db`). */
  readonly store: string;
}

export function toRevocationConfig(raw: z.output<typeof revocationSchema>): RevocationConfig | null {
  return raw === null ? null : { store: raw.store };
}
