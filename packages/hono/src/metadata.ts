import type { Generation } from '@authlayer/engine/internal';
import { JSON_TYPE } from './answer.js';
import type { HonoRoute } from './routes.js';

/**
 * The path the middleware answers the RFC 9728 document at, or null when the app serves it itself
 * (no `resource`, or `resource.serve_metadata: false`).
 */
export function servedMetadataPath(generation: Pick<Generation, 'config' | 'resourceMetadata'>): string | null {
  const resource = generation.config.resource;
  if (resource === null || resource.serveMetadata === false) return null;
  const metadata = generation.resourceMetadata();
  return metadata === null ? null : new URL(metadata.url).pathname;
}

/**
 * A `GET` or `HEAD` of the document's well-known path answered with the serving config's document,
 * before the `access` table (a client reads it to learn how to get a token, so the table cannot
 * close it by accident), as Express's `auth.access` answers it; else null.
 */
export function metadataResponse(generation: Generation, method: string, path: string): Response | null {
  if (method !== 'GET' && method !== 'HEAD') return null;
  const served = servedMetadataPath(generation);
  if (served === null || path !== served) return null;
  const document = generation.resourceMetadata()!.document;
  return new Response(JSON.stringify(document), { status: 200, headers: { 'Content-Type': JSON_TYPE } });
}

/** `routes` with the document's `GET` route when the middleware serves it: keys may name it. */
export function withMetadataRoute(generation: Generation, routes: readonly HonoRoute[]): readonly HonoRoute[] {
  const path = servedMetadataPath(generation);
  return path === null ? routes : [...routes, { method: 'GET', path, handler: () => undefined }];
}
