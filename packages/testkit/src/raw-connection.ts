import { connect } from 'node:net';

/** One HTTP response as read off the wire. */
export interface RawResponse {
  readonly status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A TCP connection that speaks HTTP by hand: for requests a client library would not send. */
export interface RawConnection {
  /** Sends bytes as they are: nothing is added or checked. */
  write(data: string | Buffer): void;
  /** The next response: `100 Continue` included, its body read by `Content-Length`. */
  nextResponse(): Promise<RawResponse>;
  /** Resolves once the server has closed the connection. */
  readonly closed: Promise<void>;
  /** Bytes the client has written that the socket accepted. */
  bytesWritten(): number;
  /** Closes the connection at once, as a client that gives up. */
  destroy(): void;
}

/**
 * Opens a TCP connection to `origin` (`http://127.0.0.1:<port>`), to send headers that Node's
 * and supertest's clients refuse or merge (several `Authorization` headers, a thousand headers,
 * `Expect: 100-continue` without a body).
 */
export async function openRawConnection(origin: string): Promise<RawConnection> {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let buffer = '';
  let wake = (): void => undefined;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    wake();
  });
  socket.on('close', () => wake());
  socket.on('error', () => undefined);

  async function nextResponse(): Promise<RawResponse> {
    for (;;) {
      const parsed = takeResponse(buffer);
      if (parsed !== undefined) {
        buffer = buffer.slice(parsed.length);
        return parsed.response;
      }
      if (socket.destroyed) throw new Error(`the connection closed before a full response: ${JSON.stringify(buffer)}`);
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  return {
    write: (data) => socket.write(data),
    nextResponse,
    closed,
    bytesWritten: () => socket.bytesWritten,
    destroy: () => socket.destroy(),
  };
}

function takeResponse(buffer: string): { response: RawResponse; length: number } | undefined {
  const end = buffer.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const lines = buffer.slice(0, end).split('\r\n');
  const statusLine = lines.shift() as string;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (buffer.length < end + 4 + length) return undefined;
  const body = buffer.slice(end + 4, end + 4 + length);
  return { response: { status: Number(statusLine.split(' ')[1]), headers, body }, length: end + 4 + length };
}
