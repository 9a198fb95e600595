// The credentials of the soak run: good, wrong and hostile, for the reference service in JWT mode
// (RS256, key from public_key_env). Minted once per run with jose; nothing is cached.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { SignJWT, importPKCS8 } from 'jose';

export const ISSUER = 'https://issuer.soak.authlayer.test/';
export const AUDIENCE = 'https://api.soak.authlayer.test';
const KID = 'soak-rs256';

function rsaPair() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

async function mint(pem, claims, header = {}) {
  const key = await importPKCS8(pem, 'RS256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT', ...header }).sign(key);
}

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * `{ publicPem, good, wrong, hostile }`: Authorization header values. `good`: `goodCount` tokens of
 * distinct users (so the verified-token cache sees repeats and misses); `wrong`: well-formed but
 * refused (another key, expired, wrong issuer or audience, not yet valid); `hostile`: alg none,
 * garbage, oversized, injected kids, other schemes, empty values.
 */
export async function soakCredentials(goodCount = 2000) {
  const own = rsaPair();
  const other = rsaPair();
  const now = Math.floor(Date.now() / 1000);
  const claims = (extra = {}) => ({
    iss: ISSUER,
    aud: AUDIENCE,
    iat: now,
    exp: now + 86_400,
    scope: 'invoke',
    ...extra,
  });
  const good = [];
  for (let i = 0; i < goodCount; i++) good.push(`Bearer ${await mint(own.privatePem, claims({ sub: `user-${i}` }))}`);
  const token = good[0].slice('Bearer '.length);
  const [head, body] = token.split('.');
  const wrong = [
    await mint(other.privatePem, claims({ sub: 'intruder' })),
    await mint(own.privatePem, claims({ sub: 'late', iat: now - 7200, exp: now - 3600 })),
    await mint(own.privatePem, claims({ sub: 'early', nbf: now + 3600 })),
    await mint(own.privatePem, claims({ sub: 'elsewhere', iss: 'https://evil.example/' })),
    await mint(own.privatePem, claims({ sub: 'other-api', aud: 'https://other.example' })),
    `${head}.${b64({ ...claims({ sub: 'tampered' }) })}.${token.split('.')[2]}`,
  ].map((t) => `Bearer ${t}`);
  const hostile = [
    `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${body}.`,
    `Bearer ${b64({ alg: 'HS256', kid: KID })}.${body}.${randomBytes(32).toString('base64url')}`,
    // (With the right key this token is valid: a static key ignores kid. The first 1M run had it so.)
    `Bearer ${await mint(other.privatePem, claims(), { kid: '../../etc/passwd' })}`,
    `Bearer ${await mint(other.privatePem, claims(), { jku: 'http://127.0.0.1:9/jwks.json' })}`,
    `Bearer ${'A'.repeat(12_000)}`,
    'Bearer not-a-jwt',
    'Bearer',
    'Bearer  ',
    `Basic ${Buffer.from('user:password').toString('base64')}`,
    `Bearer ${token}.AAAA.BBBB`,
    `Bearer ${head}.${body}`,
    '',
  ];
  return { publicPem: own.publicPem, good, wrong, hostile };
}
