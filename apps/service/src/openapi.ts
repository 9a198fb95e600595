import type { AuthMiddleware } from '@authlayer/express';
import { openApiSecurity } from '@authlayer/express';
import { AUTH_MODES, type AccessValue } from '@authlayer/core';
import { OpenApiBuilder, type OpenAPIObject, type ResponseObject } from 'openapi3-ts/oas31';
import { mcpDocument } from './openapi-mcp.js';

const errorResponse = (description: string): ResponseObject => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const RATE_LIMITED: ResponseObject = {
  ...errorResponse('Over a rate_limit (error "rate_limited"); retry after Retry-After seconds'),
  headers: { 'Retry-After': { description: 'Seconds until the window ends', schema: { type: 'integer', minimum: 1 } } },
};

/** The service's OpenAPI 3.1 document, with the security schemes of the active handler. */
export function buildOpenApiDocument(auth: AuthMiddleware): OpenAPIObject {
  const { schemes, requirements } = openApiSecurity(auth.handler);
  const access = auth.accessFor('POST', '/invoke');
  // As the access table says: [] for public, an empty requirement ({}) added for optional.
  const security =
    access.authentication === 'none' ? [] : access.authentication === 'optional' ? [...requirements, {}] : requirements;
  const builder = OpenApiBuilder.create()
    .addOpenApiVersion('3.1.0')
    .addTitle('authlayer reference service')
    .addVersion('0.0.0')
    .addDescription(
      `Authentication: auth.mode \`${auth.modes.join(', ')}\`, active handler \`${auth.methods.join(', ')}\`.`,
    )
    .addSchema('InvokeRequest', {
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string' } },
    })
    .addSchema('AuthContext', {
      type: 'object',
      required: ['method', 'userId', 'email', 'name', 'roles', 'permissions', 'scopes', 'tenantId'],
      properties: {
        // Every mode of this repository, the config's mode packages, and `none` for the no-auth fallback.
        method: { type: 'string', enum: [...new Set([...AUTH_MODES, ...auth.modes]), 'none'] },
        userId: { type: ['string', 'null'] },
        email: { type: ['string', 'null'] },
        name: { type: ['string', 'null'] },
        roles: { type: 'array', items: { type: 'string' } },
        permissions: { type: 'array', items: { type: 'string' } },
        scopes: { type: 'array', items: { type: 'string' } },
        tenantId: { type: ['string', 'null'] },
        issuer: { type: 'string', description: 'only with several JWT issuers (providers): the one that vouched' },
      },
    })
    .addSchema('Error', {
      type: 'object',
      required: ['error', 'message'],
      properties: { error: { type: 'string' }, message: { type: 'string' } },
    });
  for (const [name, scheme] of Object.entries(schemes)) builder.addSecurityScheme(name, scheme);
  builder.addPath('/invoke', {
    post: {
      operationId: 'invoke',
      summary: 'Authenticated invocation',
      security,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/InvokeRequest' },
            example: { query: 'hello' },
          },
        },
      },
      responses: {
        '200': {
          description: 'The query and the caller identity',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['query', 'auth'],
                properties: { query: { type: 'string' }, auth: { $ref: '#/components/schemas/AuthContext' } },
              },
            },
          },
        },
        '400': errorResponse('The body is not a JSON object with a string "query"'),
        ...(access.authentication === 'none'
          ? {}
          : { '401': errorResponse(describeUnauthorized(auth.config.access['POST /invoke'])) }),
        ...(access.mayRefuse ? { '403': errorResponse(describeRefusal(auth.config.access['POST /invoke'])) } : {}),
        '413': errorResponse('The body is over 1 MiB'),
        '415': errorResponse('The content type is not JSON'),
        ...(auth.config.rateLimit === null ? {} : { '429': RATE_LIMITED }),
      },
    },
  });
  const spec = builder.getSpec();
  // MCP keys are no routes: what they ask is described beside the paths (see openapi-mcp.ts).
  const mcp = mcpDocument(auth.config);
  if (mcp !== undefined) spec['x-authlayer-mcp'] = mcp;
  return spec;
}

/**
 * The 401's description; with a step-up rule (RFC 9470) also what authentication it asks for, as
 * its challenge tells the client (the acr values and max_age, never more).
 */
function describeUnauthorized(rule: AccessValue | undefined): string {
  const base = 'Not authenticated (see the WWW-Authenticate header)';
  if (typeof rule !== 'object' || (rule.acr === undefined && rule.maxAge === undefined)) return base;
  const asks = [
    ...(rule.acr === undefined ? [] : [`acr ${rule.acr.join(' or ')}`]),
    ...(rule.maxAge === undefined ? [] : [`an authentication at most ${rule.maxAge} seconds old`]),
  ];
  return `${base}, or a step-up is needed (error "insufficient_user_authentication", RFC 9470): ${asks.join(', ')}`;
}

/**
 * `Authenticated but not allowed: needs permissions invoke; scopes a, b` for the 403's description.
 * Claims are named by path: the accepted values are policy, not for a public document.
 */
function describeRefusal(rule: AccessValue | undefined): string {
  if (typeof rule !== 'object') return 'Authenticated but not allowed by the access table';
  const needs = (['permissions', 'scopes', 'roles'] as const)
    .filter((kind) => rule[kind].length > 0)
    .map((kind) => `${kind} ${rule[kind].join(', ')}`);
  if (rule.claims !== undefined) needs.push(`an accepted value of the claims ${Object.keys(rule.claims).join(', ')}`);
  if (rule.any.length > 0) needs.push('one of its alternatives');
  if (rule.tenantParam !== null) needs.push(`the tenant of :${rule.tenantParam}`);
  return `Authenticated but not allowed: needs ${needs.join('; ')}`;
}
