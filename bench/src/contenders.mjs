// The contenders: what each server process mounts in front of POST /invoke. Metadata is read by
// the orchestrator; `build` runs only inside a server process (peers are imported lazily there).
import { ISSUER, AUDIENCE } from './material.mjs';
import { HONO_CONTENDERS } from './hono-contenders.mjs';

/** Environment variables through which the orchestrator hands key material to a server. */
export const ENV = {
  RS256: 'BENCH_RS256_PUBLIC_KEY',
  ES256: 'BENCH_ES256_PUBLIC_KEY',
  HS256: 'BENCH_HS256_SECRET',
  apiKey: 'BENCH_API_KEY',
  checksummedApiKey: 'BENCH_CHECKSUMMED_API_KEY',
  apiKeysFile: 'BENCH_API_KEYS_FILE',
  jwksUrl: 'BENCH_JWKS_URL',
  introspectionUrl: 'BENCH_INTROSPECTION_URL',
  introspectionSecret: 'BENCH_INTROSPECTION_SECRET',
  redisUrl: 'BENCH_REDIS_URL',
};

/** The key material every server is handed, by its ENV variable (from `loadMaterial`). */
export const materialEnv = (material) => ({
  [ENV.RS256]: material.keys.RS256.publicPem,
  [ENV.ES256]: material.keys.ES256.publicPem,
  [ENV.HS256]: material.keys.HS256.secret,
  [ENV.apiKey]: material.keys.apiKey,
  [ENV.checksummedApiKey]: material.keys.checksummedApiKey,
  [ENV.apiKeysFile]: material.files.apiKeys,
});

const both = ['one', 'pool'];

/**
 * An `access` table of 50 entries, as a real app's policy might read: `POST /invoke` needs an
 * authenticated caller, 49 other routes (never matched by the load) have words and rule objects
 * over parameters, so every request is matched against every pattern the table holds.
 */
export function accessTable50(framework = 'express') {
  // Express's path syntax has an optional wildcard segment; a Fastify key names a route as it is
  // registered (`/*rest` is Fastify's `/*`, see fastifyTableRoutes).
  const tail = framework === 'fastify' ? '/*rest' : '{/*rest}';
  const table = { 'POST /invoke': 'authenticated' };
  const kinds = [
    'public',
    'optional',
    'authenticated',
    { permissions: ['reports:read'] },
    { scopes: ['items:write'] },
    { roles: ['admin'] },
  ];
  for (let i = 0; Object.keys(table).length < 50; i += 1) {
    const method = ['GET', 'POST', 'PUT', 'DELETE', '*'][i % 5];
    table[`${method} /api/v${1 + (i % 3)}/resource-${i}/:id${tail}`] = kinds[i % kinds.length];
  }
  return table;
}

/**
 * The routes a Fastify app needs for the keys of `accessTable50('fastify')` other than
 * `POST /invoke`: `@authlayer/fastify` refuses (at `app.ready()`) a key that names no registered
 * route, so the app registers them (never reached by the load; the router holds 49 more routes).
 */
function fastifyTableRoutes(app, table) {
  const handler = async () => ({ never: 'reached' });
  for (const key of Object.keys(table)) {
    if (key === 'POST /invoke') continue;
    const [method, pattern] = key.split(' ');
    const url = pattern.replace(/\*rest$/, '*');
    if (method === '*') app.all(url, handler);
    else app.route({ method, url, handler });
  }
}

/** The middleware a contender mounts: `auth`, or `auth.access` when it carries the 50-entry table. */
const mounted = (auth, access) => (access ? auth.access : auth);

const VARIANT_SUFFIX = { access: '-access50', jose: '-jose', revocation: '-revocation' };
const VARIANT_FAMILY = {
  access: 'authlayer, access table',
  jose: 'authlayer, jose only',
  revocation: 'authlayer, revocation list',
};
const VARIANT_LABEL = {
  access: ', auth.access with 50 entries',
  jose: ', fast path taken out (jose jwtVerify behind the same cache)',
  revocation: ', revocation.store with an empty list',
};

/**
 * `variant`: `access` (the 50-entry table through `auth.access`), `jose` (the fast path taken
 * out) or `revocation` (`revocation.store` on the bench's Redis, the list empty).
 */
const authlayerJwt = (alg, source, variant = null) => ({
  id: `authlayer-jwt-${alg.toLowerCase()}-${source}${variant === null ? '' : VARIANT_SUFFIX[variant]}`,
  family: variant === null ? 'authlayer' : VARIANT_FAMILY[variant],
  needsRedis: variant === 'revocation',
  label: `authlayer JWT, ${source === 'jwks' ? 'loopback JWKS' : alg === 'HS256' ? 'secret via public_key_env' : 'PEM via public_key_env'}${variant === null ? '' : VARIANT_LABEL[variant]}`,
  alg,
  workloads: variant === 'access' || variant === 'revocation' ? ['one'] : variant === 'jose' ? ['pool'] : both,
  needsAuthlayerJwt: true,
  async build(env) {
    const { createAuthMiddleware } = await import('@authlayer/express');
    const { importModeFromBench, importJoseOnlyJwt } = await import('./authlayer-jwt.mjs');
    const access = variant === 'access';
    const importModule = variant === 'jose' ? importJoseOnlyJwt : importModeFromBench;
    const jwt = { issuer: ISSUER, audience: AUDIENCE, algorithms: [alg] };
    if (source === 'jwks') jwt.jwks_url = env[ENV.jwksUrl];
    else jwt.public_key_env = ENV[alg];
    const config = {
      auth: { mode: 'jwt', jwt },
      ...(access ? { access: accessTable50() } : {}),
      ...(variant === 'revocation' ? { revocation: { store: env[ENV.redisUrl] } } : {}),
    };
    const auth = await createAuthMiddleware(config, { env, importModule });
    // Never measure the no-auth fallback by mistake.
    if (auth.method !== 'jwt') throw new Error(`authlayer JWT middleware is "${auth.method}", not jwt`);
    return mounted(auth, access);
  },
});

/** authlayer OAuth2 mode against the loopback introspection server; `cacheSeconds` 0 = every request asks. */
const authlayerOAuth2 = (cacheSeconds) => ({
  id: cacheSeconds === 0 ? 'authlayer-oauth2-no-cache' : 'authlayer-oauth2',
  family: 'authlayer',
  label: `authlayer OAuth2, loopback introspection, cache_seconds ${cacheSeconds}`,
  alg: 'OPAQUE',
  workloads: both,
  async build(env) {
    const { createAuthMiddleware } = await import('@authlayer/express');
    const { INTROSPECTION_CLIENT } = await import('./introspection-server.mjs');
    const oauth2 = {
      introspection_url: env[ENV.introspectionUrl],
      client_id: INTROSPECTION_CLIENT.id,
      client_secret_env: ENV.introspectionSecret,
      issuer: ISSUER,
      audience: AUDIENCE,
      cache_seconds: cacheSeconds,
    };
    const auth = await createAuthMiddleware(
      { auth: { mode: 'oauth2', oauth2 } },
      { env, importModule: (name) => import(name) },
    );
    if (auth.method !== 'oauth2') throw new Error(`authlayer OAuth2 middleware is "${auth.method}", not oauth2`);
    return auth;
  },
});

const expressJwt = (alg) => ({
  id: `express-jwt-${alg.toLowerCase()}${alg === 'HS256' ? '' : '-jwks'}`,
  family: 'express-jwt',
  label: alg === 'HS256' ? 'express-jwt, secret' : 'express-jwt + jwks-rsa, loopback JWKS',
  alg,
  workloads: both,
  async build(env) {
    const { expressjwt } = await import('express-jwt');
    let secret = env[ENV.HS256];
    if (alg !== 'HS256') {
      const { default: jwksRsa } = await import('jwks-rsa');
      // jwks-rsa's documented express-jwt set-up (cache and rate limit on).
      secret = jwksRsa.expressJwtSecret({
        jwksUri: env[ENV.jwksUrl],
        cache: true,
        rateLimit: true,
        jwksRequestsPerMinute: 10,
      });
    }
    return expressjwt({ secret, algorithms: [alg], issuer: ISSUER, audience: AUDIENCE });
  },
});

const oauth2Bearer = (alg) => ({
  id: `oauth2-bearer-${alg.toLowerCase()}${alg === 'HS256' ? '' : '-jwks'}`,
  family: 'express-oauth2-jwt-bearer',
  label: alg === 'HS256' ? 'express-oauth2-jwt-bearer, secret' : 'express-oauth2-jwt-bearer, loopback JWKS',
  alg,
  workloads: both,
  async build(env) {
    const { auth } = await import('express-oauth2-jwt-bearer');
    const keys = alg === 'HS256' ? { secret: env[ENV.HS256] } : { jwksUri: env[ENV.jwksUrl] };
    return auth({ issuer: ISSUER, audience: AUDIENCE, tokenSigningAlg: alg, ...keys });
  },
});

const joseReference = (alg) => ({
  id: `jose-${alg.toLowerCase()}`,
  family: 'jose 6 (hand-written)',
  label: `jose 6 jwtVerify, ${alg === 'HS256' ? 'secret' : 'importSPKI once'}`,
  alg,
  workloads: both,
  async build(env) {
    const { importSPKI, jwtVerify } = await import('jose');
    const key = alg === 'HS256' ? new TextEncoder().encode(env[ENV.HS256]) : await importSPKI(env[ENV[alg]], alg);
    const options = { issuer: ISSUER, audience: AUDIENCE, algorithms: [alg] };
    return (req, res, next) => {
      const header = req.headers.authorization;
      if (typeof header !== 'string' || !header.startsWith('Bearer ')) return unauthorized(res);
      jwtVerify(header.slice(7), key, options).then(
        ({ payload }) => {
          req.auth = payload;
          next();
        },
        () => unauthorized(res),
      );
    };
  },
});

const physicalLimit = (alg) => ({
  id: `limit-${alg.toLowerCase()}`,
  family: 'physical limit',
  label: 'node:crypto, key parsed once (signature + exp/iss/aud only; not a real middleware)',
  alg,
  workloads: ['pool'],
  async build(env) {
    const { verifyLimit } = await import('./limit-verifier.mjs');
    const verify = verifyLimit(alg, alg === 'HS256' ? env[ENV.HS256] : env[ENV[alg]], {
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    return (req, res, next) => {
      const header = req.headers.authorization;
      const payload = typeof header === 'string' && header.startsWith('Bearer ') ? verify(header.slice(7)) : null;
      if (payload === null) return unauthorized(res);
      req.auth = payload;
      next();
    };
  },
});

/** The same yardstick with WebCrypto's `crypto.subtle.verify` (key imported once), as jose checks signatures. */
const webCryptoLimit = (alg) => ({
  id: `limit-webcrypto-${alg.toLowerCase()}`,
  family: 'physical limit, WebCrypto',
  label: 'WebCrypto crypto.subtle.verify, key imported once (signature + exp/iss/aud only; not a real middleware)',
  alg,
  workloads: ['pool'],
  async build(env) {
    const { verifyLimitWebCrypto } = await import('./limit-verifier.mjs');
    const verify = await verifyLimitWebCrypto(alg, alg === 'HS256' ? env[ENV.HS256] : env[ENV[alg]], {
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    return (req, res, next) => {
      const header = req.headers.authorization;
      if (typeof header !== 'string' || !header.startsWith('Bearer ')) return unauthorized(res);
      verify(header.slice(7)).then((payload) => {
        if (payload === null) return unauthorized(res);
        req.auth = payload;
        next();
      });
    };
  },
});

/**
 * fast-jwt 6 with its verified-token cache, in the hand-written middleware a user would write.
 * `withAuthlayer`: a diagnostic twin that also builds authlayer's JWT middleware for the same
 * algorithm and keeps it, never called: fast-jwt's request work on authlayer's heap (its modules,
 * config schema and engine loaded), to tell what authlayer's requests cost from what its heap does.
 */
const fastJwt = (alg, withAuthlayer = false) => ({
  id: `fast-jwt-${alg.toLowerCase()}${withAuthlayer ? '-authlayer-loaded' : ''}`,
  family: withAuthlayer ? 'diagnostic: fast-jwt with authlayer loaded' : 'fast-jwt 6, cache: true (hand-written)',
  label: `fast-jwt 6 createVerifier, cache: true${withAuthlayer ? "; authlayer's JWT middleware built beside it, unused" : ''}`,
  alg,
  workloads: both,
  needsAuthlayerJwt: withAuthlayer,
  async build(env) {
    if (withAuthlayer) keptAside.push(await authlayerJwt(alg, alg === 'HS256' ? 'secret' : 'pem').build(env));
    const { createVerifier } = await import('fast-jwt');
    const verify = createVerifier({
      key: alg === 'HS256' ? env[ENV.HS256] : env[ENV[alg]],
      algorithms: [alg],
      allowedIss: ISSUER,
      allowedAud: AUDIENCE,
      cache: true,
    });
    return (req, res, next) => {
      const header = req.headers.authorization;
      if (typeof header !== 'string' || !header.startsWith('Bearer ')) return unauthorized(res);
      try {
        req.auth = verify(header.slice(7));
      } catch {
        return unauthorized(res);
      }
      next();
    };
  },
});

/** What a diagnostic contender builds and keeps without using it (so that it stays on the heap). */
const keptAside = [];

/** The physical limit with the signature on libuv's pool: does leaving the main thread pay? */
const physicalLimitAsync = (alg) => ({
  id: `limit-${alg.toLowerCase()}-pool`,
  family: 'physical limit, libuv pool',
  label: "node:crypto's callback form (signature on libuv's pool) + exp/iss/aud; not a real middleware",
  alg,
  workloads: ['pool'],
  async build(env) {
    const { verifyLimitAsync } = await import('./limit-verifier.mjs');
    const verify = verifyLimitAsync(alg, env[ENV[alg]], { issuer: ISSUER, audience: AUDIENCE });
    return (req, res, next) => {
      const header = req.headers.authorization;
      if (typeof header !== 'string' || !header.startsWith('Bearer ')) return unauthorized(res);
      verify(header.slice(7), (payload) => {
        if (payload === null) return unauthorized(res);
        req.auth = payload;
        next();
      });
    };
  },
});

/**
 * The physical limit's check as an authlayer mode: authlayer's Express middleware around it, so
 * that its cost splits into the middleware's and the JWT handler's. Not a real mode: the claims
 * become an AuthContext with the `sub` only.
 */
const limitInAuthlayerMiddleware = (alg) => ({
  id: `authlayer-middleware-limit-${alg.toLowerCase()}`,
  family: 'authlayer middleware, limit check',
  label: "authlayer's Express middleware around the physical limit's check (splits the cost)",
  alg,
  workloads: ['pool'],
  async build(env) {
    const { createAuthMiddleware } = await import('@authlayer/express');
    const { AuthError, bearerChallenge, createAuthContext, readBearerToken } = await import('@authlayer/core');
    const { verifyLimit } = await import('./limit-verifier.mjs');
    const verify = verifyLimit(alg, env[ENV[alg]], { issuer: ISSUER, audience: AUDIENCE });
    const refuse = () => new AuthError('signature_invalid', bearerChallenge('signature_invalid'));
    const authenticateNow = (request) => {
      const bearer = readBearerToken(request);
      const payload = bearer.kind === 'token' ? verify(bearer.token) : null;
      if (payload === null) throw refuse();
      return createAuthContext({ method: 'jwt', userId: payload.sub });
    };
    const handler = {
      method: 'jwt',
      authenticateNow,
      authenticate: async (request) => authenticateNow(request),
    };
    const jwt = { issuer: ISSUER, audience: AUDIENCE, algorithms: [alg], public_key_env: ENV[alg] };
    return createAuthMiddleware(
      { auth: { mode: 'jwt', jwt } },
      { env, importModule: async () => ({ createHandler: async () => handler }) },
    );
  },
});

/**
 * authlayer in API key mode: the spec's single key (`one`), or `keys` with 10 000 named clients
 * (`many`), the load spread over all of them (the key list is the file `material.mjs` writes; the
 * variables are handed to the middleware through its `env` option, not the process environment).
 */
const API_KEY_LABELS = {
  one: 'authlayer API key (X-API-Key)',
  many: 'authlayer API key, 10 000 keys (requests spread over all)',
  checksummed: 'authlayer API key, format: checksummed',
  limits: 'authlayer API key, a client with its own requests_per_minute (memory store)',
  ratelimit: 'authlayer API key, rate_limit (memory store), no limit of its own for the client',
};

/**
 * `feature` is what the variant adds to the same workload: `access` (the 50-entry table through
 * `auth.access`) or `limits` (a `keys` client with its own `requests_per_minute`, never reached).
 */
function authlayerApiKey(keys, feature = null) {
  const suffix = { one: '', many: '-10k', checksummed: '-checksummed', limits: '-limits', ratelimit: '-ratelimit' }[
    keys
  ];
  const access = feature === 'access';
  const revocation = feature === 'revocation';
  return {
    id: `authlayer-api-key${suffix}${access ? '-access50' : ''}${revocation ? '-revocation' : ''}`,
    family: access ? 'authlayer, access table' : revocation ? 'authlayer, revocation list' : 'authlayer',
    label: `${API_KEY_LABELS[keys]}${access ? ', auth.access with 50 entries' : ''}${revocation ? ', revocation.store with an empty list' : ''}`,
    needsRedis: revocation,
    alg: null,
    header: 'x-api-key',
    apiKeys: keys,
    workloads: ['one'],
    async build(env) {
      const { createAuthMiddleware } = await import('@authlayer/express');
      const { importModeFromBench } = await import('./authlayer-jwt.mjs');
      let config = { auth: { mode: 'api_key', api_keys: { env_var: ENV.apiKey } } };
      if (keys === 'checksummed') {
        const entries = [{ name: 'bench', env_var: ENV.checksummedApiKey }];
        config = { auth: { mode: 'api_key', api_keys: { format: 'checksummed', keys: entries } } };
      }
      if (keys === 'limits' || keys === 'ratelimit') {
        // The same key and rate_limit; `limits` adds the client's own limit (never reached).
        const own = keys === 'limits' ? { requests_per_minute: 1_000_000_000 } : {};
        const entries = [{ name: 'bench', env_var: ENV.apiKey, ...own }];
        config = {
          auth: { mode: 'api_key', api_keys: { keys: entries } },
          rate_limit: { requests_per_minute: 1_000_000_000, store: 'memory' },
        };
      }
      let keyEnv = env;
      if (keys === 'many') {
        const { readFile } = await import('node:fs/promises');
        const list = JSON.parse(await readFile(env[ENV.apiKeysFile], 'utf8')).keys;
        keyEnv = { ...env, ...Object.fromEntries(list.map((key, i) => [`BENCH_CLIENT_${i}_API_KEY`, key])) };
        const entries = list.map((_, i) => ({
          name: `client-${i}`,
          env_var: `BENCH_CLIENT_${i}_API_KEY`,
          roles: ['user'],
        }));
        config = {
          auth: { mode: 'api_key', api_keys: { keys: entries } },
          roles: [{ name: 'user', permissions: ['invoke'] }],
        };
      }
      if (access) config = { ...config, access: accessTable50() };
      if (revocation) config = { ...config, revocation: { store: env[ENV.redisUrl] } };
      const auth = await createAuthMiddleware(config, { env: keyEnv, importModule: importModeFromBench });
      if (auth.method !== 'api_key') throw new Error(`authlayer API key middleware is "${auth.method}", not api_key`);
      return mounted(auth, access);
    },
  };
}

/**
 * Not a middleware a user should run (plain `===`, not constant time): compares the API key with
 * the expected one, sets `req.auth` to one fixed context (API key mode's shape, frozen, as
 * authlayer's) and calls `next()`. What handing the app an identity costs in this workload before
 * any real work: the route answers the identity too (a larger body than bare's `null`), and `req`
 * carries one more property.
 */
const identityFloor = () => ({
  id: 'floor-req-auth',
  family: 'floor',
  label: 'the floor: key compared with ===, req.auth set to a fixed context; not a real middleware',
  alg: null,
  header: 'x-api-key',
  apiKeys: 'one',
  workloads: ['one'],
  async build(env) {
    const { createAuthContext } = await import('@authlayer/core');
    const context = createAuthContext({ method: 'api_key', userId: 'SERVICE_API_KEY' });
    const expected = env[ENV.apiKey];
    return (req, res, next) => {
      if (req.headers['x-api-key'] !== expected) return unauthorized(res);
      req.auth = context;
      next();
    };
  },
});

/**
 * The configuration the docs recommend for production, every feature on at once: `access` with
 * the 50-entry table (through `auth.access` on Express), `rate_limit` on the memory store with a
 * client limit (10⁹ a minute, never reached: API key, the `keys` client's own
 * `requests_per_minute`; JWT, `rate_limit.requests_per_minute`, per `sub`), `revocation.store` on
 * the bench's redis-server (the list empty). `kind`: `api-key` (the spec's key as one `keys`
 * client) or `jwt-rs256` (PEM via `public_key_env`).
 */
function productionConfig(kind, env, framework) {
  const auth =
    kind === 'api-key'
      ? {
          mode: 'api_key',
          api_keys: { keys: [{ name: 'bench', env_var: ENV.apiKey, requests_per_minute: 1_000_000_000 }] },
        }
      : {
          mode: 'jwt',
          jwt: { issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256'], public_key_env: ENV.RS256 },
        };
  return {
    auth,
    access: accessTable50(framework),
    rate_limit: { requests_per_minute: 1_000_000_000, store: 'memory' },
    revocation: { store: env[ENV.redisUrl] },
  };
}

const PRODUCTION_LABEL = 'access 50 entries + rate_limit (memory) with a client limit + revocation.store (local Redis)';

/** The production configuration on Express: `createAuthMiddleware(config).access`. */
const authlayerProduction = (kind) => ({
  id: `authlayer-prod-${kind}`,
  family: 'authlayer, production config',
  label: `authlayer ${kind === 'api-key' ? 'API key (X-API-Key)' : 'JWT, PEM via public_key_env'}, production config: ${PRODUCTION_LABEL}`,
  alg: kind === 'api-key' ? null : 'RS256',
  ...(kind === 'api-key' ? { header: 'x-api-key', apiKeys: 'one' } : {}),
  workloads: kind === 'api-key' ? ['one'] : both,
  needsRedis: true,
  needsAuthlayerJwt: kind !== 'api-key',
  async build(env) {
    const { createAuthMiddleware } = await import('@authlayer/express');
    const { importModeFromBench } = await import('./authlayer-jwt.mjs');
    const auth = await createAuthMiddleware(productionConfig(kind, env, 'express'), {
      env,
      importModule: importModeFromBench,
    });
    const method = kind === 'api-key' ? 'api_key' : 'jwt';
    if (auth.method !== method) throw new Error(`authlayer middleware is "${auth.method}", not ${method}`);
    return auth.access;
  },
});

// Fastify contenders: `build(env)` resolves with a function that sets the app up (registers a
// plugin, adds a hook) before server.mjs adds `POST /invoke`; null for bare Fastify.

/**
 * `@authlayer/fastify` (`app.register(authlayer, { config, env, importModule })`): JWT mode with the
 * key or secret from `public_key_env` (`jwt-rs256` ...), API key mode (`api-key`), or the
 * production configuration (`prod-api-key`, `prod-jwt-rs256`: the table's other 49 routes
 * registered, as the plugin wants every key to name a route).
 */
const authlayerFastify = (kind, alg = null) => {
  const prod = kind.startsWith('prod-');
  const apiKey = kind.endsWith('api-key');
  const source = alg === 'HS256' ? 'secret' : 'pem';
  const id = kind === 'jwt' ? `authlayer-fastify-jwt-${alg.toLowerCase()}-${source}` : `authlayer-fastify-${kind}`;
  const what = apiKey ? 'API key (X-API-Key)' : `JWT, ${source === 'secret' ? 'secret' : 'PEM'} via public_key_env`;
  return {
    id,
    framework: 'fastify',
    family: prod ? 'authlayer on Fastify, production config' : 'authlayer on Fastify',
    label: `@authlayer/fastify ${what}${prod ? `, production config: ${PRODUCTION_LABEL}` : ''}`,
    alg: apiKey ? null : (alg ?? 'RS256'),
    ...(apiKey ? { header: 'x-api-key', apiKeys: 'one' } : {}),
    workloads: apiKey ? ['one'] : both,
    needsRedis: prod,
    needsAuthlayerJwt: !apiKey,
    async build(env) {
      const { default: authlayer } = await import('@authlayer/fastify');
      const { importModeFromBench } = await import('./authlayer-jwt.mjs');
      let config;
      if (prod) config = productionConfig(apiKey ? 'api-key' : 'jwt-rs256', env, 'fastify');
      else if (apiKey) config = { auth: { mode: 'api_key', api_keys: { env_var: ENV.apiKey } } };
      else
        config = {
          auth: {
            mode: 'jwt',
            jwt: { issuer: ISSUER, audience: AUDIENCE, algorithms: [alg], public_key_env: ENV[alg] },
          },
        };
      return async (app) => {
        await app.register(authlayer, { config, env, importModule: importModeFromBench });
        if (prod) fastifyTableRoutes(app, config.access);
        // Never measure the no-auth fallback by mistake (it documents no security scheme).
        const wanted = apiKey ? 'APIKeyHeader' : 'BearerAuth';
        const schemes = Object.keys(app.authlayer.securitySchemes.schemes);
        if (!schemes.includes(wanted)) throw new Error(`@authlayer/fastify documents [${schemes}], not ${wanted}`);
      };
    },
  };
};

/**
 * `@fastify/jwt` (fast-jwt 6 underneath) with fast-jwt's verified-token cache (`verify.cache: true`,
 * 1 000 entries, as the hand-written fast-jwt contenders), the checks the others make
 * (`algorithms`, `allowedIss`, `allowedAud`), and its documented `onRequest` hook calling
 * `request.jwtVerify()` (a refusal goes to `reply.send(err)`: its 401).
 */
const fastifyJwt = (alg) => ({
  id: `fastify-jwt-${alg.toLowerCase()}`,
  framework: 'fastify',
  family: '@fastify/jwt, cache: true',
  label: '@fastify/jwt (fast-jwt 6), verify.cache: true, onRequest request.jwtVerify()',
  alg,
  workloads: both,
  async build(env) {
    const { default: fastifyJwtPlugin } = await import('@fastify/jwt');
    return async (app) => {
      await app.register(fastifyJwtPlugin, {
        // a public key only: verify-only mode (no signer)
        secret: alg === 'HS256' ? env[ENV.HS256] : { public: env[ENV[alg]] },
        verify: { algorithms: [alg], allowedIss: ISSUER, allowedAud: AUDIENCE, cache: true },
      });
      app.addHook('onRequest', async (request, reply) => {
        try {
          await request.jwtVerify();
        } catch (error) {
          return reply.send(error);
        }
      });
    };
  },
});

function unauthorized(res) {
  res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: 'unauthorized', message: 'invalid token' });
}

/**
 * Every contender, in report order. The bares have no middleware: each is the ceiling of its
 * framework, and every contender is paired with the bare of its own framework (measure.mjs).
 */
export const CONTENDERS = [
  {
    id: 'bare',
    family: 'bare',
    label: 'bare Express 5 (no authentication)',
    alg: 'RS256',
    workloads: both,
    build: async () => null,
  },
  {
    id: 'bare-fastify',
    framework: 'fastify',
    family: 'bare',
    label: 'bare Fastify 5 (no authentication)',
    alg: 'RS256',
    workloads: both,
    build: async () => null,
  },
  identityFloor(),
  authlayerApiKey('one'),
  authlayerApiKey('one', 'access'),
  authlayerApiKey('one', 'revocation'),
  authlayerApiKey('many'),
  authlayerApiKey('many', 'access'),
  authlayerApiKey('checksummed'),
  authlayerApiKey('ratelimit'),
  authlayerApiKey('limits'),
  authlayerJwt('RS256', 'pem'),
  authlayerJwt('RS256', 'pem', 'access'),
  authlayerJwt('RS256', 'pem', 'revocation'),
  authlayerJwt('RS256', 'pem', 'jose'),
  authlayerJwt('ES256', 'pem', 'jose'),
  authlayerJwt('HS256', 'secret', 'jose'),
  authlayerJwt('RS256', 'jwks'),
  authlayerJwt('ES256', 'pem'),
  authlayerJwt('HS256', 'secret'),
  authlayerOAuth2(60),
  authlayerOAuth2(0),
  fastJwt('RS256'),
  fastJwt('ES256'),
  fastJwt('HS256'),
  fastJwt('RS256', true),
  fastJwt('HS256', true),
  joseReference('RS256'),
  joseReference('ES256'),
  joseReference('HS256'),
  oauth2Bearer('RS256'),
  oauth2Bearer('ES256'),
  oauth2Bearer('HS256'),
  expressJwt('RS256'),
  expressJwt('ES256'),
  expressJwt('HS256'),
  physicalLimit('RS256'),
  physicalLimit('ES256'),
  physicalLimit('HS256'),
  webCryptoLimit('RS256'),
  webCryptoLimit('ES256'),
  webCryptoLimit('HS256'),
  physicalLimitAsync('RS256'),
  physicalLimitAsync('ES256'),
  limitInAuthlayerMiddleware('RS256'),
  authlayerProduction('api-key'),
  authlayerProduction('jwt-rs256'),
  authlayerFastify('jwt', 'RS256'),
  authlayerFastify('jwt', 'ES256'),
  authlayerFastify('jwt', 'HS256'),
  authlayerFastify('api-key'),
  authlayerFastify('prod-api-key'),
  authlayerFastify('prod-jwt-rs256'),
  fastifyJwt('RS256'),
  fastifyJwt('ES256'),
  fastifyJwt('HS256'),
  ...HONO_CONTENDERS,
].map((c) => ({ framework: 'express', header: 'authorization', needsAuthlayerJwt: false, needsRedis: false, ...c }));

export const contenderById = (id) => CONTENDERS.find((c) => c.id === id);

/** A bare framework: no middleware, the ceiling its framework's contenders are paired with. */
export const isBare = (c) => c.family === 'bare';

/** The bare contender of `framework` (`express`, `fastify` or `hono`). */
export const bareOf = (framework) => CONTENDERS.find((c) => isBare(c) && c.framework === framework);
