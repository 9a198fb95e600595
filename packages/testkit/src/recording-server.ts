import { startLoopbackServer } from './loopback-server.js';

/** A server that records every request it receives: the attacker's, in hostile-token tests. */
export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** `METHOD url` of each request received, in order. */
  readonly requests: readonly string[];
  /** Stops listening and ends open connections, at the end of a test. */
  close(): Promise<void>;
}

/**
 * Starts a recording server on 127.0.0.1, port 0. It answers every request with an empty key
 * set, so a client that did fetch from it would find nothing useful, but it would be recorded.
 */
export async function startRecordingServer(): Promise<RecordingServer> {
  const requests: string[] = [];
  const server = await startLoopbackServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
  });
  return { origin: server.origin, requests, close: () => server.close() };
}
