import type { Generation } from '@authlayer/engine/internal';
import type { Request, Response } from 'express';

/**
 * Answers a `GET` or `HEAD` of the RFC 9728 document's well-known path itself, when `resource` is
 * configured and `resource.serve_metadata` is not `false`: a public answer the `access` table
 * cannot close by accident (a client reads it to learn how to get a token). `method`: the
 * request's (read once by the caller). True when it answered.
 */
export function answerMetadata(generation: Generation, method: string, req: Request, res: Response): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const path = servedMetadataPath(generation);
  if (path === null || req.baseUrl !== '' || req.path !== path) return false;
  res.json(generation.resourceMetadata()!.document);
  return true;
}

/**
 * The path {@link answerMetadata} answers `GET` at, or null when the app serves the document
 * itself (no `resource`, or `resource.serve_metadata: false`): a route of the app for the checks
 * that flag keys naming none (`unmatchedRules`, the reload check).
 */
export function servedMetadataPath(generation: Pick<Generation, 'config' | 'resourceMetadata'>): string | null {
  const resource = generation.config.resource;
  if (resource === null || resource.serveMetadata === false) return null;
  const metadata = generation.resourceMetadata();
  return metadata === null ? null : new URL(metadata.url).pathname;
}
