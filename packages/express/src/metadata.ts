import type { Generation } from '@authlayer/engine/internal';
import type { Request, Response } from 'express';

/**
 * Answers a `GET` or `HEAD` of the RFC 9728 document's well-known path itself, when `resource` is
 * configured and `resource.serve_metadata` is not `false`: a public answer the `access` table
 * cannot close by accident (a client reads it to learn how to get a token). True when it answered.
 */
export function answerMetadata(generation: Generation, req: Request, res: Response): boolean {
  const resource = generation.config.resource;
  if (resource === null || resource.serveMetadata === false) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const metadata = generation.resourceMetadata();
  if (metadata === null || req.baseUrl !== '' || req.path !== new URL(metadata.url).pathname) return false;
  res.json(metadata.document);
  return true;
}
