#!/usr/bin/env node
import { isConfigError, loadConfig, type AuthConfig, type Logger } from '@authlayer/core';
import { continueAfterAuthentication, describeStartup } from '@authlayer/express';
import cluster from 'node:cluster';
import { createApp, type ServiceApp } from './app.js';
import { checkConfig } from './check-config.js';
import { createServiceLog, toLogger } from './logging.js';
import { formatNewApiKey, newApiKey } from './new-key.js';
import { writePidFile } from './pid-file.js';
import { answerClientErrors, stopOnSignals } from './serve.js';
import { runRevocationCommand } from './revocations.js';
import { DEFAULT_CONFIG, readSettings, USAGE, UsageError, type Settings } from './settings.js';
import { runPolicyCommand } from './cli/policy-command.js';
import { runPrimary } from './workers.js';
import { createServer, readTlsOptions, type TlsOptions } from './tls-server.js';
import { dirname } from 'node:path';
import { createServer as createHttpServer, type Server } from 'node:http';

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  // `authlayer test` and `authlayer explain`: policy judged offline, exit codes 0 / 4 / 3.
  if (command === 'test' || command === 'explain') {
    process.exitCode = await runPolicyCommand(command, rest, {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
      env: process.env,
      cwd: process.cwd(),
      defaultConfig: DEFAULT_CONFIG,
    });
    return;
  }
  const settings = readSettings(process.argv.slice(2), process.env);
  if (settings.help) return void process.stdout.write(USAGE);
  // Needs no config and no key material: it makes key material.
  if (settings.newKey) return void process.stdout.write(formatNewApiKey(await newApiKey(settings.newKeyPrefix)));
  const config = await loadConfig(settings.configPath);
  if (settings.revocation !== null)
    return void process.stdout.write(await runRevocationCommand(settings.revocation, config));
  const log = createServiceLog(config, settings.log);
  const logger = toLogger(log);
  if (settings.check) {
    const report = await checkConfig(settings.configPath, config, { logger });
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  // Read (and checked) before any worker is forked, so a missing file is one start-up line.
  const tls = await readTlsOptions(config.tls, dirname(settings.configPath));
  const scheme = tls === null ? 'http' : 'https';
  const say = (port: number) =>
    logger.info(`listening on ${scheme}://${settings.host}:${port} (auth.mode ${config.modes.join(', ')})`);
  if (settings.workers > 1 && cluster.isPrimary) {
    // Built once here too, so a missing key is one start-up line rather than one per worker.
    const app = await createApp(config, { logger });
    sayStartup(settings, app, logger);
    await app.shutdown();
    runPrimary(settings.workers, logger, (port) => say(port));
    if (settings.pidFile !== null) writePidFile(settings.pidFile);
    return;
  }
  const port = await serve(settings, config, log, logger, tls);
  // Once it serves (and passes SIGHUP on, with workers): a reload sent by the file reaches this process.
  if (cluster.isPrimary && settings.pidFile !== null) writePidFile(settings.pidFile);
  if (cluster.isPrimary) say(port);
}

/**
 * SIGHUP reloads the config file and the key files it names; a failure is logged and counted by
 * the middleware, and the old config keeps serving. Listened to from the first moment, so a
 * SIGHUP that comes while the process starts is not its default (the end of the process).
 */
let reloadOnHangup = (): void => undefined;
process.on('SIGHUP', () => reloadOnHangup());

/** Builds the app, listens (HTTPS with `tls`), and stops gracefully on SIGTERM/SIGINT; resolves with the port. */
async function serve(
  settings: Settings,
  config: AuthConfig,
  log: ReturnType<typeof createServiceLog>,
  logger: Logger,
  tls: TlsOptions | null,
) {
  const app = await createApp(config, { log, ...(settings.metrics === null ? {} : { metrics: settings.metrics }) });
  if (cluster.isPrimary) sayStartup(settings, app, logger);
  // HTTPS with the `tls` section (asking for client certificates with client_ca_file), else HTTP.
  const server = createServer(tls, app).listen(settings.port, settings.host);
  answerClientErrors(server);
  // Expect: 100-continue gets its 100 only once the request is authenticated.
  continueAfterAuthentication(server, app);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  // forward_auth.listen: /forward-auth on a listener of its own (plain HTTP, for the proxy only);
  // it stops with the public one.
  const sidecar = await listenForwardAuth(app, logger);
  const release = async () => {
    if (sidecar !== null) await new Promise((done) => sidecar.close(done));
    await app.shutdown();
  };
  stopOnSignals(server, logger, release, (code) => process.exit(code));
  reloadOnHangup = () => void app.reload().catch(() => undefined);
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : settings.port;
}

async function listenForwardAuth(app: ServiceApp, logger: Logger): Promise<Server | null> {
  const listen = app.auth.config.forwardAuth.listen;
  if (app.forwardAuth === null || listen === null) return null;
  const server = createHttpServer(app.forwardAuth).listen(listen.port, listen.host);
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : listen.port;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  if (cluster.isPrimary) logger.info(`forward_auth.listen: /forward-auth at http://${host}:${port}/forward-auth`);
  return server;
}

/** Each start-up says its config, mode, handler and where the keys come from (never a value). */
function sayStartup(settings: Settings, app: ServiceApp, logger: Logger): void {
  logger.info(`config ${settings.configPath}, ${describeStartup(app.auth)}`);
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
