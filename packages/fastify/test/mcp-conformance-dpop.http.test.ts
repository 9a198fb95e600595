import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createDpopKey,
  forgeToken,
  signDpopProof,
  startTestIdentityProvider,
  type DpopKey,
  type DpopProofOptions,
  type TestIdentityProvider,
} from '@authlayer/testkit';
import { randomBytes } from 'node:crypto';
import { ADAPTERS, FULL_SCOPE, serveEveryAdapter, type ConformanceServers } from './support/conformance-server.js';
import { INITIALIZE, probe } from './support/conformance-probe.js';

// The checks of the MCP conformance suite's `auth/dpop-server-validation` scenario (SEP-1932,
// RFC 9449 §4.3), which its registry build (0.1.16) does not have: a valid DPoP-bound token and
// proof is accepted, and each defect is 401 with a `DPoP` challenge. Against the same fixture
// server as the suite's own run, on both adapters; each case is named by the suite's check name.
// Not made: the nonce flow (SKIPPED by the suite when a server asks for no nonce, as here).

const IDENTIFIER = 'https://mcp.example.com/mcp';

let idp: TestIdentityProvider;
let client: DpopKey;
let token: string;
let servers: ConformanceServers;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  client = await createDpopKey('ES256');
  token = await bound(client.jkt);
  servers = await serveEveryAdapter(idp, IDENTIFIER);
});
afterAll(async () => {
  await servers.close();
  await idp.close();
});

/** A token bound to the key of thumbprint `jkt`, for this resource unless `aud` says otherwise. */
function bound(jkt: string, aud = IDENTIFIER) {
  return idp.signToken({ sub: 'conformance', aud, scope: FULL_SCOPE, cnf: { jkt } });
}

/** A proof of the probe (POST to the resource) for `token`, with `options` on top. */
const proof = (options: Partial<DpopProofOptions> = {}, forToken = token) =>
  client.proof({ method: 'POST', url: IDENTIFIER, token: forToken, ...options });

const now = () => Math.floor(Date.now() / 1000);

/** The suite's defective requests: the check name, the Authorization header, the DPoP header(s). */
const DEFECTS: [string, () => Promise<[string, string | string[]]>][] = [
  ['RejectsTamperedSignature', async () => [`DPoP ${token}`, tamper(await proof())]],
  ['RejectsMissingJti', async () => [`DPoP ${token}`, await proof({ claims: { jti: undefined } })]],
  ['RejectsWrongTyp', async () => [`DPoP ${token}`, await proof({ header: { typ: 'jwt' } })]],
  ['RejectsHtuMismatch', async () => [`DPoP ${token}`, await proof({ url: 'https://wrong.example.com/mcp' })]],
  ['RejectsHtmMismatch', async () => [`DPoP ${token}`, await proof({ method: 'GET' })]],
  ['RejectsPrivateKeyInJwk', async () => [`DPoP ${token}`, await proof({ header: { jwk: client.privateJwk } })]],
  ['RejectsWrongAth', async () => [`DPoP ${token}`, await proof({ claims: { ath: 'not-the-right-hash' } })]],
  ['RejectsDuplicateDpopHeader', async () => [`DPoP ${token}`, [await proof(), await proof()]]],
  ['RejectsMissingHtm', async () => [`DPoP ${token}`, await proof({ claims: { htm: undefined } })]],
  ['RejectsMissingHtu', async () => [`DPoP ${token}`, await proof({ claims: { htu: undefined } })]],
  ['RejectsMissingIat', async () => [`DPoP ${token}`, await proof({ claims: { iat: undefined } })]],
  ['RejectsMissingJwk', async () => [`DPoP ${token}`, await proof({ header: { jwk: undefined } })]],
  ['RejectsAthAbsent', async () => [`DPoP ${token}`, await client.proof({ method: 'POST', url: IDENTIFIER })]],
  ['RejectsMalformedProof', async () => [`DPoP ${token}`, 'this-is-not-a-jwt']],
  ['RejectsCnfJktMismatch', async () => rebound((await createDpopKey('ES256')).jkt)],
  ['RejectsStaleIat', async () => [`DPoP ${token}`, await proof({ iat: now() - 303 })]],
  ['RejectsFutureIat', async () => [`DPoP ${token}`, await proof({ iat: now() + 303 })]],
  ['RejectsAlgNone', async () => [`DPoP ${token}`, unsigned()]],
  ['RejectsAlgSymmetric', async () => [`DPoP ${token}`, await symmetric()]],
  ['RejectsWrongAudience', async () => rebound(client.jkt, 'https://not-this-server.example.com/mcp')],
];

/** The proof with one character of its signature changed. */
function tamper(jwt: string): string {
  const at = jwt.lastIndexOf('.') + 5;
  return jwt.slice(0, at) + (jwt[at] === 'A' ? 'B' : 'A') + jwt.slice(at + 1);
}

/** A token bound to `jkt` (and for `aud`), presented with a valid proof of the client's key. */
async function rebound(jkt: string, aud = IDENTIFIER): Promise<[string, string]> {
  const other = await bound(jkt, aud);
  return [`DPoP ${other}`, await proof({}, other)];
}

/** The proof's claims under `alg: none`, with no signature. */
function unsigned(): string {
  const claims = { jti: 'none-1', htm: 'POST', htu: IDENTIFIER, iat: now() };
  return forgeToken({ typ: 'dpop+jwt', alg: 'none', jwk: client.publicJwk }, claims);
}

/** A proof signed with HS256 under a random secret. */
function symmetric(): Promise<string> {
  const options = { method: 'POST', url: IDENTIFIER, token };
  return signDpopProof(randomBytes(32), 'HS256', client.publicJwk, options);
}

/** A `DPoP` scheme at the start of the challenge or after a comma (RFC 9110 §11.6.1). */
const DPOP_CHALLENGE = /(?:^|,)\s*DPoP(?:\s|$|,)/i;

describe.each(ADAPTERS)('the suite DPoP server checks (auth/dpop-server-validation), on %s', (adapter) => {
  const url = () => servers.url(adapter);

  it('AcceptsValidProof: a DPoP-bound token with its proof is accepted', async () => {
    expect((await probe(url(), INITIALIZE, { authorization: `DPoP ${token}`, dpop: await proof() })).status).toBe(200);
  });

  it.each(DEFECTS)('%s: 401 with a DPoP challenge (RejectsWith401Challenge)', async (_name, make) => {
    const [authorization, dpop] = await make();
    const res = await probe(url(), INITIALIZE, { authorization, dpop });
    expect(res.status).toBe(401);
    expect(res.challenge).toMatch(DPOP_CHALLENGE);
  });

  it('RejectsBearerScheme: the bound token sent as Bearer is 401 with a Bearer or DPoP challenge', async () => {
    const res = await probe(url(), INITIALIZE, { authorization: `Bearer ${token}`, dpop: await proof() });
    expect(res.status).toBe(401);
    expect(res.challenge).toMatch(/(?:^|,)\s*(?:Bearer|DPoP)(?:\s|$|,)/i);
  });
});
