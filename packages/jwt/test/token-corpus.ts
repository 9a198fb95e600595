import { createHmac, KeyObject, sign } from 'node:crypto';
import type { SigningKey } from '@authlayer/testkit';
import type { CryptoKey } from 'jose';
import { NOW } from './fixtures.js';

// Tokens for the differential test: signed structural variants (odd headers, edge claims, odd
// encodings, signed as they are so that only the checks after the signature can refuse them)
// and mutations of signed tokens. A seeded PRNG keeps every run identical.

export const ISSUER = 'https://idp.example';
export const AUDIENCE = 'api';
export const LEEWAY = 30;
const ABSENT = undefined;

/** mulberry32: small, fast, good enough to pick test cases; the same seed gives the same cases. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    chance: (p: number) => next() < p,
    pick: <T>(list: readonly T[]): T => list[int(list.length)] as T,
  };
}
export type Random = ReturnType<typeof createRandom>;

/** Signs any signing input with node:crypto, so headers jose would not sign can be made. */
export function createRawSigner(key: SigningKey): (input: string) => string {
  const hash = `sha${key.alg.slice(2)}`;
  if (key.signingKey instanceof Uint8Array) {
    const secret = key.signingKey;
    return (input) => createHmac(hash, secret).update(input, 'latin1').digest('base64url');
  }
  const privateKey = KeyObject.from(key.signingKey as CryptoKey);
  const options = key.alg.startsWith('ES') ? { key: privateKey, dsaEncoding: 'ieee-p1363' as const } : privateKey;
  return (input) => sign(hash, Buffer.from(input, 'latin1'), options).toString('base64url');
}

/** A token and the instant (ms) it is presented at. */
export interface Case {
  readonly token: string;
  readonly nowMs: number;
}

/** One JSON object as raw text, so duplicate members and numbers like `1e400` can be written. */
const object = (members: [string, string | undefined][]): string =>
  `{${members.flatMap(([name, value]) => (value === ABSENT ? [] : [`${JSON.stringify(name)}:${value}`])).join(',')}}`;

/** A time claim around `center` (seconds), or a value of the wrong kind. */
function timeClaim(random: Random, center: number): string | undefined {
  if (random.chance(0.75)) return String(center + random.pick([-2, -1, -0.5, 0, 0.5, 1, 2, 300, -300, 1e-7]));
  return random.pick([
    `"${center}"`,
    'null',
    'true',
    '[]',
    '{}',
    '1e400',
    '-1e400',
    '0',
    '-0',
    '1e308',
    `${center}e0`,
    ABSENT,
  ]);
}

function headerText(random: Random, key: SigningKey): string {
  if (random.chance(0.04))
    return random.pick(['[]', `"${key.alg}"`, '1', 'null', 'true', '{', `{"alg":"${key.alg}"`, '', ' ']);
  const other = key.alg.startsWith('HS') ? 'RS256' : 'HS256';
  const alg = random.chance(0.85)
    ? `"${key.alg}"`
    : random.pick([
        '"none"',
        '"None"',
        `"${key.alg.toLowerCase()}"`,
        '""',
        '123',
        'null',
        `["${key.alg}"]`,
        `"${other}"`,
        ABSENT,
      ]);
  const members: [string, string | undefined][] = [
    ['alg', alg],
    ['typ', random.pick(['"JWT"', '"JWT"', '"at+jwt"', '123', ABSENT])],
    ['kid', random.chance(0.8) ? JSON.stringify(key.kid) : random.pick(['"other"', '123', 'null', ABSENT])],
  ];
  if (random.chance(0.15)) {
    members.push([
      'crit',
      random.pick([
        '["b64"]',
        '["b64"]',
        '[]',
        '["x-ext"]',
        '["b64","b64"]',
        '"b64"',
        '[""]',
        '[1]',
        'null',
        '["b64","x"]',
      ]),
    ]);
  }
  if (random.chance(0.15)) members.push(['b64', random.pick(['true', 'false', 'false', '"false"', '0', 'null'])]);
  if (random.chance(0.05)) members.push(['x-ext', '1'], ['jku', '"https://evil.example/jwks"']);
  // The last of duplicate members wins in JSON.parse, for jose and the fast path alike.
  if (random.chance(0.05)) members.push(['alg', random.pick(['"none"', `"${key.alg}"`])]);
  return object(members);
}

function payloadText(random: Random): string {
  if (random.chance(0.04)) return random.pick(['[]', '"x"', '1', 'null', `[{"exp":${NOW + 300}}]`, '{', '', 'true']);
  const members: [string, string | undefined][] = [
    [
      'iss',
      random.chance(0.9) ? `"${ISSUER}"` : random.pick([`"${ISSUER}/"`, '""', 'null', `["${ISSUER}"]`, '123', ABSENT]),
    ],
    ['sub', '"user-1"'],
    [
      'aud',
      random.chance(0.75)
        ? `"${AUDIENCE}"`
        : random.pick([
            '["api"]',
            '["other","api"]',
            '[]',
            '["API"]',
            '[null,"api"]',
            '[1]',
            '"other"',
            'null',
            '{}',
            ABSENT,
            '[["api"]]',
            '"api "',
          ]),
    ],
  ];
  if (random.chance(0.05)) members.push(['exp', `${NOW + 300}`]); // overridden below when exp is written again
  const exp = random.chance(0.5) ? String(NOW + 300) : timeClaim(random, NOW - LEEWAY);
  members.push(['exp', exp]);
  if (random.chance(0.3)) members.push(['nbf', timeClaim(random, NOW + LEEWAY)]);
  members.push(['iat', random.chance(0.6) ? String(NOW) : timeClaim(random, NOW + LEEWAY)]);
  if (random.chance(0.03)) members.push(['__proto__', '{"exp":1}']);
  if (random.chance(0.03)) members.push(['exp', '1']);
  return object(members);
}

/** The bytes of a JSON text, sometimes with a BOM, surrounding whitespace or invalid UTF-8. */
function textBytes(random: Random, text: string): Buffer {
  const roll = random.next();
  if (roll < 0.03) return Buffer.from(`\uFEFF${text}`);
  if (roll < 0.06) return Buffer.from(` \n${text}\t `);
  if (roll < 0.09)
    return Buffer.concat([
      Buffer.from(text.slice(0, -1)),
      Buffer.from([random.pick([0xff, 0xc3, 0xed, 0x80])]),
      Buffer.from(text.slice(-1)),
    ]);
  if (roll < 0.11) return Buffer.from(text.replace('user-1', 'us\u00e9r-\u{1f600}'));
  return Buffer.from(text);
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** base64url of `bytes`, sometimes spelled oddly: padding, whitespace, the +/ alphabet, spare bits set, one extra character. */
function encodeSegment(random: Random, bytes: Buffer): string {
  const plain = bytes.toString('base64url');
  const roll = random.next();
  if (roll < 0.03) return bytes.toString('base64'); // '+', '/' and '=' padding
  if (roll < 0.06) return `${plain}${'='.repeat(random.int(3))}`;
  if (roll < 0.08) return `${plain.slice(0, 4)} ${plain.slice(4)}`;
  if (roll < 0.14) {
    // The last character may carry unused bits: set them (a non-canonical spelling of the same bytes).
    const last = ALPHABET.indexOf(plain.at(-1) as string);
    const spare = plain.length % 4 === 2 ? 15 : plain.length % 4 === 3 ? 3 : 0;
    return `${plain.slice(0, -1)}${ALPHABET[(last & ~spare) | (random.int(spare + 1) & spare)]}`;
  }
  if (roll < 0.16) return `${plain}${random.pick(['A', 'AA', 'AAA', 'AAAA'])}`;
  return plain;
}

/** A token signed as it is, with odd header and claims, presented at a random instant of second NOW. */
export function signedCase(random: Random, key: SigningKey, signRaw: (input: string) => string): Case {
  const input = `${encodeSegment(random, textBytes(random, headerText(random, key)))}.${encodeSegment(random, textBytes(random, payloadText(random)))}`;
  return { token: `${input}.${signRaw(input)}`, nowMs: NOW * 1000 + random.pick([0, 1, 499, 999]) };
}

/** A signed token changed after signing: one character, cut, spliced, segments moved. */
export function mutatedCase(random: Random, from: readonly Case[]): Case {
  const { token, nowMs } = random.pick(from);
  const other = random.pick(from).token;
  const at = random.int(token.length);
  const [h, p, s] = token.split('.') as [string, string, string];
  const mutations: (() => string)[] = [
    () => `${token.slice(0, at)}${random.pick([...ALPHABET])}${token.slice(at + 1)}`,
    () =>
      `${token.slice(0, at)}${random.pick(['=', ' ', '+', '/', '.', '~', '%', 'é', '\u0000', '\n'])}${token.slice(at + 1)}`,
    () => token.slice(0, at),
    () => `${token.slice(0, at)}${token.slice(at + 1)}`,
    () => `${token.slice(0, at)}${random.pick([...ALPHABET])}${token.slice(at)}`,
    () => `${h}.${p}.${other.split('.')[2]}`,
    () => `${h}.${p}.`,
    () => `${h}.${p}.${s}.${s}`,
    () => `${h}.${other.split('.')[1]}.${s}`,
    () => `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`,
    () => `${h}.${p}.${Buffer.concat([Buffer.from([0]), Buffer.from(s, 'base64url')]).toString('base64url')}`,
    () => `${h}.${p}.${Buffer.from(s, 'base64url').subarray(1).toString('base64url')}`,
    () => `${h}.${p}.${s}${random.pick(['A', 'AA', '='])}`,
    () => ` ${token}`,
  ];
  return { token: random.pick(mutations)(), nowMs };
}
