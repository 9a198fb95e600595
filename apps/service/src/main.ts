#!/usr/bin/env node
import { isConfigError, loadConfig } from '@authlayer/core';
import { consoleLogger } from '@authlayer/express';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createApp } from './app.js';
import { checkConfig } from './check-config.js';

/** What the command line and the environment ask for. */
interface Settings {
  readonly configPath: string;
  readonly port: number;
  readonly host: string;
  /** `--check`: validate the config and the key material, print the resolved settings, exit. */
  readonly check: boolean;
}

const DEFAULT_CONFIG = fileURLToPath(new URL('../service.yaml', import.meta.url));

class UsageError extends Error {}

function readSettings(argv: string[], env: NodeJS.ProcessEnv): Settings {
  let values: { config?: string | undefined; check?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: argv, options: { config: { type: 'string' }, check: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (usage: main.js [--config PATH] [--check])`);
  }
  const port = env.PORT === undefined || env.PORT === '' ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('PORT must be an integer from 0 to 65535');
  return {
    configPath: values.config ?? (env.SERVICE_CONFIG || DEFAULT_CONFIG),
    port,
    host: env.HOST || '127.0.0.1',
    check: values.check === true,
  };
}

/** Answers what Node's HTTP parser refuses (a header over 16 KiB, a broken request line) with JSON. */
function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason, code] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
        : [400, 'Bad Request', 'the request is not valid HTTP'];
    const body = JSON.stringify({ error: 'invalid_request', message: code });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

async function main(): Promise<void> {
  const settings = readSettings(process.argv.slice(2), process.env);
  const config = await loadConfig(settings.configPath);
  if (settings.check) {
    const report = await checkConfig(settings.configPath, config, { logger: consoleLogger });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const app = await createApp(config, { logger: consoleLogger });
  const server = app.listen(settings.port, settings.host);
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : settings.port;
  consoleLogger.info(`listening on http://${settings.host}:${port} (auth.mode ${config.mode})`);
}

main().catch((error: unknown) => {
  // One line on stderr, no stack trace: the contract's start-up failure.
  const message = isConfigError(error)
    ? `config error: ${error.message}`
    : error instanceof UsageError
      ? error.message
      : `start-up failed: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`authlayer: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(1);
});
