// Key material and tokens for the benchmark: an RSA-2048 and a P-256 key pair, an HMAC secret, an
// API key, and per algorithm one token for the "one token" workload, a warm-up pool and the
// measured pool of distinct tokens. All minted with jose, cached in bench/.cache (git-ignored)
// so later runs start at once; tokens are re-minted a day before they would expire.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, exportJWK, exportPKCS8, exportSPKI, generateKeyPair, importPKCS8 } from 'jose';

export const ALGORITHMS = ['RS256', 'ES256', 'HS256'];
export const ISSUER = 'https://issuer.bench.authlayer.test/';
export const AUDIENCE = 'https://api.bench.authlayer.test';
export const WARM_POOL = 1000;
export const CACHE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '.cache');

const DAY = 86_400;
const LIFETIME = 30 * DAY;
export const KID = { RS256: 'bench-rs256', ES256: 'bench-es256', HS256: 'bench-hs256' };

async function readJson(file) {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return null;
  }
}

async function newBenchChecksummedKey() {
  const { newChecksummedKey } = await import('@authlayer/api-key');
  return newChecksummedKey('bench');
}

async function loadKeys() {
  const file = join(CACHE_DIR, 'keys.json');
  const cached = await readJson(file);
  if (cached?.version === 1 && typeof cached.checksummedApiKey === 'string') return cached;
  if (cached?.version === 1) {
    // A cache from before the checksummed-key contender: add its key, keep the rest (and the tokens).
    cached.checksummedApiKey = await newBenchChecksummedKey();
    await writeFile(file, JSON.stringify(cached));
    return cached;
  }
  const keys = { version: 1, id: randomBytes(8).toString('hex') };
  for (const alg of ['RS256', 'ES256']) {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: KID[alg], alg, use: 'sig' };
    keys[alg] = { privatePem: await exportPKCS8(privateKey), publicPem: await exportSPKI(publicKey), jwk };
  }
  // RFC 7518 §3.2: at least 32 bytes for HS256; 48 random bytes as 64 base64url characters.
  keys.HS256 = { secret: randomBytes(48).toString('base64url') };
  keys.apiKey = randomBytes(32).toString('base64url');
  keys.checksummedApiKey = await newBenchChecksummedKey();
  await writeFile(file, JSON.stringify(keys));
  return keys;
}

async function signingKey(keys, alg) {
  return alg === 'HS256' ? new TextEncoder().encode(keys.HS256.secret) : importPKCS8(keys[alg].privatePem, alg);
}

async function mint(key, alg, subjects, exp) {
  const out = new Array(subjects.length);
  const batch = 64; // jose signs through WebCrypto, off the main thread: keep both cores busy
  for (let i = 0; i < subjects.length; i += batch) {
    const slice = subjects.slice(i, i + batch);
    const signed = await Promise.all(
      slice.map((sub) =>
        new SignJWT({ scope: 'invoke read', email: `${sub}@bench.test`, roles: ['user'] })
          .setProtectedHeader({ alg, kid: KID[alg], typ: 'JWT' })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setSubject(sub)
          .setIssuedAt()
          .setExpirationTime(exp)
          .sign(key),
      ),
    );
    signed.forEach((token, j) => (out[i + j] = token));
  }
  return out;
}

async function loadTokens(keys, alg, poolSize, log) {
  const file = join(CACHE_DIR, `tokens-${alg}.json`);
  const now = Math.floor(Date.now() / 1000);
  const cached = await readJson(file);
  if (cached?.keysId === keys.id && cached.pool?.length === poolSize && cached.exp - now > DAY) return cached;
  log(`minting ${poolSize + WARM_POOL + 1} ${alg} tokens with jose (cached in bench/.cache afterwards)`);
  const key = await signingKey(keys, alg);
  const exp = now + LIFETIME;
  const [one] = await mint(key, alg, ['client-1'], exp);
  const warm = await mint(
    key,
    alg,
    Array.from({ length: WARM_POOL }, (_, i) => `warm-${i}`),
    exp,
  );
  const pool = await mint(
    key,
    alg,
    Array.from({ length: poolSize }, (_, i) => `user-${i}`),
    exp,
  );
  const tokens = { keysId: keys.id, exp, one, warm, pool };
  await writeFile(file, JSON.stringify(tokens));
  return tokens;
}

/** The 10 000 API keys of the many-keys contender (32 random bytes each, base64url), cached. */
export const API_KEY_COUNT = 10_000;

async function loadApiKeys(keys) {
  const file = join(CACHE_DIR, 'api-keys.json');
  const cached = await readJson(file);
  if (cached?.keysId === keys.id && cached.keys?.length === API_KEY_COUNT) return file;
  const list = Array.from({ length: API_KEY_COUNT }, () => randomBytes(32).toString('base64url'));
  await writeFile(file, JSON.stringify({ keysId: keys.id, keys: list }));
  return file;
}

/** Opaque tokens for the OAuth2 contenders: random strings that the introspection server knows. */
async function loadOpaqueTokens(poolSize) {
  const file = join(CACHE_DIR, 'tokens-OPAQUE.json');
  const cached = await readJson(file);
  const now = Math.floor(Date.now() / 1000);
  if (cached?.pool?.length === poolSize && cached.exp - now > DAY) return cached;
  const make = (count) => Array.from({ length: count }, () => randomBytes(24).toString('base64url'));
  const tokens = { exp: now + LIFETIME, one: make(1)[0], warm: make(WARM_POOL), pool: make(poolSize) };
  await writeFile(file, JSON.stringify(tokens));
  return tokens;
}

/**
 * Loads (or creates) the key material and token pools.
 * @returns {Promise<{keys: object, tokens: Record<string, {one: string, warm: string[], pool: string[]}>,
 *   files: Record<string, string>}>}
 */
export async function loadMaterial(poolSize, log = () => {}) {
  await mkdir(CACHE_DIR, { recursive: true });
  const keys = await loadKeys();
  const tokens = {};
  const files = {};
  for (const alg of ALGORITHMS) {
    tokens[alg] = await loadTokens(keys, alg, poolSize, log);
    files[alg] = join(CACHE_DIR, `tokens-${alg}.json`);
  }
  files.apiKeys = await loadApiKeys(keys);
  tokens.OPAQUE = await loadOpaqueTokens(poolSize);
  files.OPAQUE = join(CACHE_DIR, 'tokens-OPAQUE.json');
  return { keys, tokens, files };
}

/** The public key set the loopback JWKS server serves. */
export const publicJwks = (keys) => ({ keys: [keys.RS256.jwk, keys.ES256.jwk] });
