/** Why a request to the provider gave no usable answer; for operators, never the answer itself. */
export type FetchFailureKind =
  | 'timed out'
  | 'unreachable'
  | 'not a 200'
  | 'not a JSON object'
  | 'too large'
  | 'a garbled answer'
  | 'the metadata names another issuer'
  | 'the metadata has no usable introspection_endpoint';

/** A request to the provider that gave no usable answer. Its message never holds the answer. */
export class FetchFailure extends Error {
  override readonly name = 'FetchFailure';
  constructor(readonly kind: FetchFailureKind) {
    super(kind);
  }
}

/** The largest answer read from the provider (discovery document or introspection answer). */
export const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Fetches `url` and reads a JSON object from a 200 answer, within `timeoutMs` for the whole
 * exchange (body included). Redirects are not followed: a 3xx is `not a 200`.
 *
 * @throws FetchFailure and nothing else.
 */
export async function fetchJsonObject(
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  try {
    const response = await fetch(url, { ...init, redirect: 'manual', signal });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new FetchFailure('not a 200');
    }
    text = await readBounded(response);
  } catch (error) {
    if (error instanceof FetchFailure) throw error;
    throw new FetchFailure(signal.aborted ? 'timed out' : 'unreachable');
  }
  return parseObject(text);
}

async function readBounded(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw new FetchFailure('too large');
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // A body without Content-Length (chunked) is counted as it arrives. A 200 always has a body
  // stream (fetch gives `null` only for 101, 204, 205 and 304).
  for await (const chunk of response.body as ReadableStream<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) throw new FetchFailure('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FetchFailure('not a JSON object');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FetchFailure('not a JSON object');
  return value as Record<string, unknown>;
}
