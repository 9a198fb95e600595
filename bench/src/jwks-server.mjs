// The loopback JSON Web Key Set server that the JWKS contenders fetch keys from. Counts its hits.
import { createServer } from 'node:http';

/** Starts the server on 127.0.0.1, a free port. Resolves with {url, hits(), close()}. */
export async function startJwksServer(jwks) {
  const body = JSON.stringify(jwks);
  let hits = 0;
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    hits += 1;
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/.well-known/jwks.json`,
    hits: () => hits,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
