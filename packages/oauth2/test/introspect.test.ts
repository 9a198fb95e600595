import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startLoopbackServer, type LoopbackServer } from '@authlayer/testkit';
import { createIntrospect } from '../src/introspect.js';
import { MAX_ANSWER_BYTES } from '../src/answer-limit.js';

interface Seen {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
let server: LoopbackServer;
let seen: Seen[] = [];
let answer: (response: import('node:http').ServerResponse) => void = (response) => void response.end('{"active":true}');
beforeAll(async () => {
  server = await startLoopbackServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ method: request.method as string, headers: request.headers, body });
      answer(response);
    });
  });
});
afterAll(() => server.close());

const client = { clientId: 'api:one', clientSecret: 's&e c+r=t%', timeoutMs: 2000 };

describe('createIntrospect', () => {
  it('posts token and token_type_hint, with client_secret_basic form-encoded before base64 (RFC 6749 §2.3.1)', async () => {
    seen = [];
    expect(
      await createIntrospect({ ...client, authMethod: 'client_secret_basic' })(`${server.origin}/i`, 'tok.en'),
    ).toEqual({ active: true });
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request?.headers.accept).toBe('application/json');
    expect(Buffer.from(String(request?.headers.authorization).replace(/^Basic /, ''), 'base64').toString()).toBe(
      'api%3Aone:s%26e+c%2Br%3Dt%25',
    );
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({
      token: 'tok.en',
      token_type_hint: 'access_token',
    });
  });

  it('puts client_id and client_secret in the form with client_secret_post', async () => {
    seen = [];
    await createIntrospect({ ...client, authMethod: 'client_secret_post' })(`${server.origin}/i`, 't');
    expect(seen[0]?.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(seen[0]?.body))).toEqual({
      token: 't',
      token_type_hint: 'access_token',
      client_id: 'api:one',
      client_secret: 's&e c+r=t%',
    });
  });

  it.each([
    [
      'a redirect (never followed)',
      (r: import('node:http').ServerResponse) => void r.writeHead(302, { location: '/elsewhere' }).end(),
      'not a 200',
    ],
    ['a JSON list', (r: import('node:http').ServerResponse) => void r.end('[{"active":true}]'), 'not a JSON object'],
    ['JSON null', (r: import('node:http').ServerResponse) => void r.end('null'), 'not a JSON object'],
    [
      'a declared length past the bound',
      (r: import('node:http').ServerResponse) =>
        void r.writeHead(200, { 'content-length': MAX_ANSWER_BYTES + 1 }).end(' '.repeat(MAX_ANSWER_BYTES + 1)),
      'too large',
    ],
    [
      'a chunked body past the bound',
      (r: import('node:http').ServerResponse) => {
        r.write(' '.repeat(MAX_ANSWER_BYTES));
        r.end(' {"active":true}');
      },
      'too large',
    ],
  ])('fails on %s', async (_name, respond, kind) => {
    answer = respond;
    await expect(
      createIntrospect({ ...client, authMethod: 'client_secret_post' })(`${server.origin}/i`, 't'),
    ).rejects.toMatchObject({ name: 'FetchFailure', kind, message: kind });
  });

  it('reads an answer of exactly the bound', async () => {
    const body = '{"active":true}';
    answer = (r) => void r.end(body + ' '.repeat(MAX_ANSWER_BYTES - body.length));
    expect(await createIntrospect({ ...client, authMethod: 'client_secret_post' })(`${server.origin}/i`, 't')).toEqual({
      active: true,
    });
  });
});
