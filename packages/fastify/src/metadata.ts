import type { Generation } from '@authlayer/engine/internal';
import type { FastifyInstance, FastifyRequest } from 'fastify';

// The route's own config marks it, so the access hook lets it through whatever the table says.
const MARK = 'authlayerResourceMetadata';

/**
 * With `resource` configured (and `resource.serve_metadata` not `false`), the RFC 9728 document at
 * its well-known path (`GET`, and Fastify's `HEAD`): a public route the `access` table cannot close
 * by accident. It answers the document of the config that serves (after a reload too), 404 when
 * that config no longer has `resource`.
 */
export function serveMetadata(app: FastifyInstance, current: () => Generation): void {
  const resource = current().config.resource;
  const metadata = current().resourceMetadata();
  if (resource === null || resource.serveMetadata === false || metadata === null) return;
  app.get(new URL(metadata.url).pathname, { config: { [MARK]: true } }, async (_request, reply) => {
    const document = current().resourceMetadata()?.document;
    if (document === undefined) return reply.code(404).send({ error: 'not_found', message: 'no resource metadata' });
    return document;
  });
}

/** True for the route {@link serveMetadata} added. */
export function isMetadataRoute(request: FastifyRequest): boolean {
  return (request.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[MARK] === true;
}
