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

/** Which proxy asks: the header style `/forward-auth` reads the original request from. */
export const FORWARD_AUTH_PROXIES = ['nginx', 'traefik'] as const;

// host:port, the host a name, an IPv4 address or a bracketed IPv6 address.
const LISTEN = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

export const forwardAuthSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    proxy: z.enum(FORWARD_AUTH_PROXIES).nullable().default(null),
    listen: z
      .string()
      .regex(LISTEN, 'must be host:port, for example 127.0.0.1:9091')
      .refine((text) => Number(LISTEN.exec(text)?.[1]) <= 65535, 'must have a port of at most 65535')
      .nullable()
      .default(null),
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
  /**
   * The only header style read: `nginx` (`X-Original-*`) or `traefik` (`X-Forwarded-*`). `null`
   * (default): either, and a request with headers of both is refused.
   */
  readonly proxy: (typeof FORWARD_AUTH_PROXIES)[number] | null;
  /** `host:port` of a listener of its own for `/forward-auth` (not on the public one); `null`: the public one. */
  readonly listen: { readonly host: string; readonly port: number } | null;
}

/** Converts the YAML's `forward_auth` once; absent means off. */
export function toForwardAuthConfig(raw: z.output<typeof forwardAuthSchema>): ForwardAuthConfig {
  if (raw === null) return { enabled: false, identityHeaders: { ...DEFAULT_HEADERS }, proxy: null, listen: null };
  return {
    enabled: raw.enabled,
    identityHeaders: { ...raw.identity_headers },
    proxy: raw.proxy,
    listen: raw.listen === null ? null : toListen(raw.listen),
  };
}

function toListen(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(':');
  return { host: text.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(text.slice(colon + 1)) };
}
