// Hono contenders (`framework: 'hono'`, on `@hono/node-server`): `build(env)` resolves with a
// function that registers the contender's middleware on the app before server.mjs adds
// `POST /invoke`; null for bare Hono. Each is paired with bare Hono (measure.mjs).
import { ISSUER, AUDIENCE, KID } from './material.mjs';
// A cycle with contenders.mjs (which lists these): ENV is read only inside build().
import { ENV } from './contenders.mjs';

const both = ['one', 'pool'];

/** `@authlayer/hono` (`app.use(await authlayer({ config, env, importModule }))`), JWT with a PEM or a secret. */
const authlayerHono = (alg) => {
  const source = alg === 'HS256' ? 'secret' : 'pem';
  return {
    id: `authlayer-hono-jwt-${alg.toLowerCase()}-${source}`,
    framework: 'hono',
    family: 'authlayer on Hono',
    label: `@authlayer/hono JWT, ${source === 'secret' ? 'secret' : 'PEM'} via public_key_env`,
    alg,
    workloads: both,
    needsAuthlayerJwt: true,
    async build(env) {
      const { authlayer } = await import('@authlayer/hono');
      const { importModeFromBench } = await import('./authlayer-jwt.mjs');
      const config = {
        auth: {
          mode: 'jwt',
          jwt: { issuer: ISSUER, audience: AUDIENCE, algorithms: [alg], public_key_env: ENV[alg] },
        },
      };
      const auth = await authlayer({ config, env, importModule: importModeFromBench });
      // Never measure the no-auth fallback by mistake: a request without a token is refused.
      const { Hono } = await import('hono');
      const probe = new Hono().use(auth).post('/invoke', (c) => c.text('let through'));
      const refused = await probe.request('/invoke', { method: 'POST' });
      if (refused.status !== 401) throw new Error(`@authlayer/hono let a request without a token through`);
      return (app) => app.use(auth);
    },
  };
};

/** The verification options Hono's own middleware takes: the checks the other contenders make. */
const verification = { iss: ISSUER, aud: AUDIENCE };

/**
 * `hono/jwt` (`jwt({ secret, alg, verification })`): one key, any algorithm Hono knows; the PEM
 * public key or the HMAC secret as its `secret`. No cache of verified tokens.
 */
const honoJwt = (alg) => ({
  id: `hono-jwt-${alg.toLowerCase()}`,
  framework: 'hono',
  family: 'hono/jwt',
  label: 'hono/jwt, one key (PEM or secret), verification { iss, aud }',
  alg,
  workloads: both,
  async build(env) {
    const { jwt } = await import('hono/jwt');
    return (app) => app.use(jwt({ secret: env[ENV[alg]], alg, verification }));
  },
});

/**
 * `hono/jwk` (`jwk({ keys, alg, verification })`): asymmetric algorithms only, the public key as
 * a JWK given in `keys` (no JWKS fetch in the loop: the fairest case for it).
 */
const honoJwk = (alg) => ({
  id: `hono-jwk-${alg.toLowerCase()}`,
  framework: 'hono',
  family: 'hono/jwk',
  label: 'hono/jwk, keys: [the public JWK], verification { iss, aud }',
  alg,
  workloads: both,
  async build(env) {
    const { jwk } = await import('hono/jwk');
    const { createPublicKey } = await import('node:crypto');
    // The tokens name their key (`kid`), as the JWKS the other contenders fetch does.
    const key = { ...createPublicKey(env[ENV[alg]]).export({ format: 'jwk' }), kid: KID[alg], alg, use: 'sig' };
    return (app) => app.use(jwk({ keys: [key], alg: [alg], verification }));
  },
});

/** The Hono contenders, in report order: bare Hono first (the ceiling), then the middlewares. */
export const HONO_CONTENDERS = [
  {
    id: 'bare-hono',
    framework: 'hono',
    family: 'bare',
    label: 'bare Hono 4 on @hono/node-server (no authentication)',
    alg: 'RS256',
    workloads: both,
    build: async () => null,
  },
  authlayerHono('RS256'),
  authlayerHono('ES256'),
  authlayerHono('HS256'),
  honoJwk('RS256'),
  honoJwk('ES256'),
  honoJwt('RS256'),
  honoJwt('ES256'),
  honoJwt('HS256'),
];
