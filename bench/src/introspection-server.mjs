// The loopback RFC 7662 introspection endpoint that the OAuth2 contenders ask. It knows the opaque
// tokens of the material (every other token is inactive), checks the client's Basic credentials,
// and counts the introspection requests it answers: the provider's load, reported per measurement.
import { createServer } from 'node:http';
import { AUDIENCE, ISSUER } from './material.mjs';

export const INTROSPECTION_CLIENT = { id: 'bench-api', secret: 'bench-introspection-secret-0123456789' };

/** Starts the server on 127.0.0.1, a free port. Resolves with {url, hits(), close()}. */
export async function startIntrospectionServer(opaque) {
  const active = new Set([opaque.one, ...opaque.warm, ...opaque.pool]);
  const exp = opaque.exp;
  const expected = `Basic ${Buffer.from(`${INTROSPECTION_CLIENT.id}:${INTROSPECTION_CLIENT.secret}`).toString('base64')}`;
  const answer = (token) =>
    JSON.stringify(
      active.has(token)
        ? {
            active: true,
            iss: ISSUER,
            aud: AUDIENCE,
            client_id: 'bench-client',
            sub: 'opaque-user',
            scope: 'invoke read',
            exp,
          }
        : { active: false },
    );
  let hits = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      hits += 1;
      if (req.headers.authorization !== expected) return void res.writeHead(401).end('{"error":"invalid_client"}');
      const token = new URLSearchParams(body).get('token') ?? '';
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer(token));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/introspect`,
    hits: () => hits,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
