/** Why a key set (or its discovery document) could not be read; `cause` is for operators. */
export class KeyFetchError extends Error {
  override readonly name = 'KeyFetchError';
  /** `error` for a provider that contradicts the config (a misconfiguration), else `warn`. */
  constructor(
    readonly reason: string,
    readonly level: 'warn' | 'error' = 'warn',
  ) {
    super(reason);
  }
}

/** Told of each fetch: `ok` for an answer with status 200, `error` for any other answer or none. */
export type FetchObserver = (result: 'ok' | 'error') => void;

// Real key sets and discovery documents are a few KiB; refuse to buffer more than this.
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * GETs `url` and parses its JSON body. Redirects are not followed (as jose's remote key set),
 * the request is aborted after `timeoutMs`, and a body over 1 MiB is refused.
 *
 * @throws KeyFetchError with a short cause: `timed out`, `the request failed`,
 *   `the answer was not a 200 with JSON`.
 */
export async function fetchJson(url: string, timeoutMs: number, observe: FetchObserver): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      redirect: 'manual',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    observe('error');
    throw new KeyFetchError((error as Error | undefined)?.name === 'TimeoutError' ? 'timed out' : 'the request failed');
  }
  observe(response.status === 200 ? 'ok' : 'error');
  if (response.status !== 200) {
    // An error page is not read; a null-body status (204, 304) has nothing to cancel.
    await response.body?.cancel();
    throw new KeyFetchError('the answer was not a 200 with JSON');
  }
  try {
    return JSON.parse(await readBounded(response.body as ReadableStream<Uint8Array>)) as unknown;
  } catch (error) {
    throw new KeyFetchError(
      (error as Error).name === 'TimeoutError' ? 'timed out' : 'the answer was not a 200 with JSON',
    );
  }
}

/** The body as text; past {@link MAX_BODY_BYTES} the stream is cancelled (leaving the loop does it). */
async function readBounded(body: ReadableStream<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) throw new Error('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
