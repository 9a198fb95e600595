import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

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
  readonly init?: {
    readonly method?: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly body?: string;
  };
  /** Told once per request: `ok` for an answer with status 200, `error` for any other or none. */
  readonly observe?: (result: 'ok' | 'error') => void;
}

// One keep-alive pool per protocol for every provider this process asks: an introspection per
// new token costs a fraction of a fresh connection, or of `fetch`'s own machinery. Idle sockets
// are unref'd by the agent, so they never keep a process alive.
const AGENTS = {
  'http:': new HttpAgent({ keepAlive: true }),
  'https:': new HttpsAgent({ keepAlive: true }),
} as const;

/**
 * Asks `url` with node:http(s) over a keep-alive pool and reads a JSON object from a 200 answer.
 * Redirects are not followed (a 3xx is `not a 200`), the exchange is aborted after `timeoutMs`,
 * and a body over `maxBytes` is refused before it is buffered. A request that fails on a pooled
 * connection the server had just closed is sent once more on a new one (Node's documented
 * pattern for keep-alive races); nothing else is retried. A URL with user info, or not http(s),
 * is `unreachable`: credentials only ever travel in the headers the caller sets.
 *
 * @throws FetchFailure and nothing else
 * @example
 * const document = await fetchJsonObject(url, { timeoutMs: 5000, maxBytes: MAX_DOCUMENT_BYTES });
 */
export async function fetchJsonObject(url: string, options: FetchJsonOptions): Promise<Record<string, unknown>> {
  const target = URL.canParse(url) ? new URL(url) : null;
  if (target === null || !(target.protocol in AGENTS) || target.username !== '' || target.password !== '') {
    options.observe?.('error');
    throw new FetchFailure('unreachable');
  }
  // One deadline for the whole exchange, a retry included: a plain timer that destroys the
  // request in flight (cheaper per call than an AbortSignal).
  const deadline: Deadline = { expired: false, request: null };
  const timer = setTimeout(() => {
    deadline.expired = true;
    deadline.request?.destroy();
  }, options.timeoutMs);
  // The observer hears of the status as soon as it is known, whatever the body does next.
  let status: number | null = null;
  const onStatus = (code: number) => {
    status = code;
    options.observe?.(code === 200 ? 'ok' : 'error');
  };
  let text: string;
  try {
    text = await exchange(target, options, deadline, onStatus, true);
  } catch (error) {
    if (status === null) options.observe?.('error');
    if (error instanceof FetchFailure) throw error;
    throw new FetchFailure(deadline.expired ? 'timed out' : 'unreachable');
  } finally {
    clearTimeout(timer);
  }
  return parseObject(text);
}

interface Deadline {
  expired: boolean;
  /** The request in flight, destroyed when the deadline passes. */
  request: ClientRequest | null;
}

/**
 * One request; resolves the body of a 200 (at most `maxBytes`). Any other status is `not a 200`
 * at once, and its connection is dropped: an error page is never read.
 */
function exchange(
  target: URL,
  options: FetchJsonOptions,
  deadline: Deadline,
  onStatus: (status: number) => void,
  mayRetry: boolean,
): Promise<string> {
  const init = options.init ?? {};
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<string>((resolve, reject) => {
    const req = send(target, {
      method: init.method ?? 'GET',
      headers,
      agent: AGENTS[target.protocol as keyof typeof AGENTS],
    });
    deadline.request = req;
    req.on('error', (error: NodeJS.ErrnoException) => {
      // The server closed a pooled connection as we reused it: nothing reached it, ask again.
      if (mayRetry && req.reusedSocket && error.code === 'ECONNRESET' && !deadline.expired) {
        resolve(exchange(target, options, deadline, onStatus, false));
      } else reject(error);
    });
    req.on('response', (res) => {
      onStatus(res.statusCode ?? 0);
      if (res.statusCode !== 200) {
        reject(new FetchFailure('not a 200'));
        return res.destroy();
      }
      if (Number(res.headers['content-length'] ?? 0) > options.maxBytes) {
        reject(new FetchFailure('too large'));
        return res.destroy();
      }
      const chunks: Buffer[] = [];
      let size = 0;
      // A body without Content-Length (chunked) is counted as it arrives.
      res.on('data', (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > options.maxBytes) {
          // Settled first: destroying the answer emits its own events.
          reject(new FetchFailure('too large'));
          res.destroy();
        } else chunks.push(chunk);
      });
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
      res.on('aborted', () => reject(new FetchFailure(deadline.expired ? 'timed out' : 'unreachable')));
    });
    req.end(init.body);
  });
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
