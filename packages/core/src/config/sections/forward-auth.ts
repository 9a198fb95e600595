import { z } from 'zod';

// The top-level `forward_auth` section: the reference service as a proxy's authentication sidecar.

/** The AuthContext fields an identity header may carry. */
export const IDENTITY_FIELDS = [
  'method',
  'userId',
  'email',
  'name',
  'roles',
  'permissions',
  'scopes',
  'tenantId',
] as const;
/**
 * One of `IDENTITY_FIELDS`: an AuthContext field an identity header may carry.
 * @useDeclaredType
 */
export type IdentityField = (typeof IDENTITY_FIELDS)[number];

// RFC 9110 §5.6.2: a field name is a token.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

const DEFAULT_HEADERS: Readonly<Record<string, IdentityField>> = Object.freeze({
  'X-Auth-User-Id': 'userId',
  'X-Auth-Method': 'method',
  'X-Auth-Roles': 'roles',
  'X-Auth-Tenant': 'tenantId',
});

export const forwardAuthSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    identity_headers: z
      .record(
        z.string().regex(HEADER_NAME, 'must be a header name (RFC 9110 token, 1 to 64 characters)'),
        z.enum(IDENTITY_FIELDS),
      )
      .refine((headers) => Object.keys(headers).length <= 32, 'must name at most 32 headers')
      .default({ ...DEFAULT_HEADERS }),
  })
  .nullable()
  .default(null);

/** `forward_auth`, with every default filled in. */
export interface ForwardAuthConfig {
  /** Serve `/forward-auth`. Default `false`. */
  readonly enabled: boolean;
  /** Answer header → AuthContext field, sent on a 200. Default: X-Auth-User-Id, -Method, -Roles, -Tenant. */
  readonly identityHeaders: Readonly<Record<string, IdentityField>>;
}

/** Converts the YAML's `forward_auth` once; absent means off. */
export function toForwardAuthConfig(raw: z.output<typeof forwardAuthSchema>): ForwardAuthConfig {
  if (raw === null) return { enabled: false, identityHeaders: { ...DEFAULT_HEADERS } };
  return { enabled: raw.enabled, identityHeaders: { ...raw.identity_headers } };
}
