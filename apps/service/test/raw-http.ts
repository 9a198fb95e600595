import { once } from 'node:events';
import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/**
 * One request with `target` on the request line exactly as given (fetch and http.request resolve
 * dot segments or refuse odd targets; a hostile client does neither), `Connection: close`, and
 * the whole answer once the server closes.
 */
export async function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  // write, not end: nginx takes a half-closed connection for a client that went away.
  socket.write(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'close');
  const text = Buffer.concat(chunks).toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split);
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), head, body: text.slice(split + 4) };
}
