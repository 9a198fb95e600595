/** What {@link readBoundedBody} answers when the body's stream failed (the client hung up). */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * The body of a web `Request` read whole, or `null` once it grows past `limit` bytes (the stream
 * is cancelled there, read no further), or {@link ABORTED} when the stream errs before its end.
 * Web streams only, so it runs wherever `Request` does (Node, Bun, Deno, a Worker).
 */
export async function readBoundedBody(request: Request, limit: number): Promise<Uint8Array | null | typeof ABORTED> {
  const body = request.body;
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        // Not awaited: a peer that stopped sending must not keep the 413 waiting.
        reader.cancel().catch(() => undefined);
        return null;
      }
      chunks.push(value);
    }
  } catch {
    return ABORTED;
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}
