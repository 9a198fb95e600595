/** What `readBoundedBody` answers when the client hung up before the end. */
export const ABORTED: unique symbol = Symbol('aborted');

/**
 * A request body read whole, or `null` once it grows past `limit` bytes (then it is read no
 * further and the stream is paused), or {@link ABORTED} when the stream errs or closes before its
 * end (the client hung up). Node's streams only: an adapter hands its framework's raw request.
 */
export function readBoundedBody(
  stream: NodeJS.ReadableStream & { readonly destroyed?: boolean },
  limit: number,
): Promise<Buffer | null | typeof ABORTED> {
  if (stream.destroyed === true) return Promise.resolve(ABORTED);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        stream.pause();
        return resolve(null);
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    // An error, or a close before the end: the client hung up.
    const onGone = () => {
      cleanup();
      resolve(ABORTED);
    };
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onGone);
      stream.off('close', onGone);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onGone);
    stream.on('close', onGone);
  });
}
