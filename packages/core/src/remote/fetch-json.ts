/**
 * Why a remote document (a key set, a discovery document, an introspection answer) gave no
 * usable answer: a short cause for operators (`kind`), never the answer itself.
 */
export class FetchFailure extends Error {
  override readonly name = 'FetchFailure';
  /**
   * @param kind - the cause: `timed out`, `unreachable`, `not a 200`, `too large`,
   *   `not a JSON object`, or a caller's own (`the answer is not a valid key set`)
   * @param level - `error` when the answer contradicts the config (a misconfiguration), else `warn`
   */
  constructor(
    readonly kind: string,
    readonly level: 'warn' | 'error' = 'warn',
  ) {
    super(kind);
  }
}

/** How {@link fetchJsonObject} asks. */
export interface FetchJsonOptions {
  /** For the whole exchange, the body included. */
  readonly timeoutMs: number;
  /** The largest body read; a larger one (declared or counted) is `too large`. */
  readonly maxBytes: number;
  /** Method, headers and body of the request (default: a GET). Redirects are never followed. */
  readonly init?: Omit<RequestInit, 'redirect' | 'signal'>;
  /** Told once per request: `ok` for an answer with status 200, `error` for any other or none. */
  readonly observe?: (result: 'ok' | 'error') => void;
}

/**
 * Fetches `url` with the platform's `fetch` and reads a JSON object from a 200 answer. Redirects
 * are not followed (a 3xx is `not a 200`), the exchange is aborted after `timeoutMs`, and a body
 * over `maxBytes` is refused before it is buffered. Stateless: no connection, cache or timer
 * outlives the call.
 *
 * @throws FetchFailure and nothing else
 * @example
 * const document = await fetchJsonObject(url, { timeoutMs: 5000, maxBytes: MAX_DOCUMENT_BYTES });
 */
export async function fetchJsonObject(url: string, options: FetchJsonOptions): Promise<Record<string, unknown>> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { ...options.init, redirect: 'manual', signal });
  } catch {
    options.observe?.('error');
    throw new FetchFailure(signal.aborted ? 'timed out' : 'unreachable');
  }
  options.observe?.(response.status === 200 ? 'ok' : 'error');
  let text: string;
  try {
    if (response.status !== 200) {
      // An error page is not read; a null-body status (204, 304) has nothing to cancel.
      await response.body?.cancel();
      throw new FetchFailure('not a 200');
    }
    text = await readBounded(response, options.maxBytes);
  } catch (error) {
    if (error instanceof FetchFailure) throw error;
    throw new FetchFailure(signal.aborted ? 'timed out' : 'unreachable');
  }
  return parseObject(text);
}

async function readBounded(response: Response, maxBytes: number): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw new FetchFailure('too large');
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // A body without Content-Length (chunked) is counted as it arrives; leaving the loop cancels it.
  // A 200 always has a body stream (fetch gives `null` only for 101, 204, 205 and 304).
  for await (const chunk of response.body as ReadableStream<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new FetchFailure('too large');
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
