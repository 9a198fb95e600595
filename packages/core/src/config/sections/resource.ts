import { z } from 'zod';

// The top-level `resource` section: RFC 9728 protected resource metadata, served by the reference
// service and named in every 401 challenge so that clients find how to get a token.

const url = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http(s) URL');

export const resourceSchema = z
  .strictObject({
    // RFC 9728 §1.2: the resource identifier is an https URL without a fragment (http for loopback tests).
    identifier: url.refine((value) => !value.includes('#'), 'must not have a fragment'),
    name: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters').optional(),
    documentation: url.optional(),
    // A token whose `aud` also names another resource is refused (RFC 8707 allows several).
    audience_strict: z.boolean().default(false),
    // Each adapter answers the RFC 9728 document itself; false: the app serves it.
    serve_metadata: z.boolean().default(true),
  })
  .nullable()
  .default(null);

/** `resource`, with its optional fields `null` when not written. */
export interface ResourceConfig {
  readonly identifier: string;
  readonly name: string | null;
  readonly documentation: string | null;
  /** `audience_strict`: every `aud` entry of a token must name `identifier`. Default `false`. */
  readonly audienceStrict?: boolean;
  /** `serve_metadata`: the adapters answer the metadata's well-known path. Default `true`. */
  readonly serveMetadata?: boolean;
}

export function toResourceConfig(raw: z.output<typeof resourceSchema>): ResourceConfig | null {
  if (raw === null) return null;
  return {
    identifier: raw.identifier,
    name: raw.name ?? null,
    documentation: raw.documentation ?? null,
    audienceStrict: raw.audience_strict,
    serveMetadata: raw.serve_metadata,
  };
}

/**
 * Where the metadata of `identifier` is served (RFC 9728 §3.1): the well-known path inserted
 * between the host and the identifier's path.
 *
 * @example
 * resourceMetadataUrl('https://api.example.com/v1'); // 'https://api.example.com/.well-known/oauth-protected-resource/v1'
 */
export function resourceMetadataUrl(identifier: string): string {
  const { origin, pathname } = new URL(identifier);
  return `${origin}/.well-known/oauth-protected-resource${pathname === '/' ? '' : pathname.replace(/\/$/, '')}`;
}
