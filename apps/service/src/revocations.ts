import type { AuthConfig } from '@authlayer/core';
import { connectRevocations } from '@authlayer/express';
import { UsageError, type RevocationCommand } from './settings.js';

/**
 * `--revoke`, `--unrevoke`, `--revocations`: one change to (or a listing of) the config's
 * `revocation.store`, through Redis itself, so it needs no key material and no running service;
 * every replica following the list is told of a change within a second. Returns what to print.
 *
 * @throws UsageError (one line, exit 1) without `revocation.store`, or when Redis is unreachable
 *   or does not take the change; the message never holds the store's URL
 */
export async function runRevocationCommand(command: RevocationCommand, config: AuthConfig): Promise<string> {
  if (config.revocation === null)
    throw new UsageError('the config has no revocation.store (add revocation: { store: redis://host:port/db })');
  let admin: Awaited<ReturnType<typeof connectRevocations>>;
  const changes = command.verb !== 'list';
  try {
    admin = await connectRevocations(config.revocation);
  } catch (error) {
    // Nothing was sent: for a change, say it was not made.
    throw new UsageError(`${(error as Error).message}${changes ? '; the change was not applied' : ''}`);
  }
  try {
    switch (command.verb) {
      case 'revoke': {
        const made = await admin.revoke(command.entry, command.ttlSeconds);
        return `revoked ${made.entry} until ${made.expiresAt}\n`;
      }
      case 'unrevoke':
        return (await admin.unrevoke(command.entry))
          ? `unrevoked ${command.entry}\n`
          : `${command.entry} was not revoked\n`;
      case 'list': {
        const listed = (await admin.list()).map(({ entry, expiresAt }) => ({ entry, expires_at: expiresAt }));
        return `${JSON.stringify(listed, null, 2)}\n`;
      }
    }
  } catch (error) {
    // ioredis's own message (a timeout, a closed connection) names no URL, but say it our way. A
    // change sent and not answered may have been made; one refused before sending was not.
    const outcome = !changes
      ? ''
      : (error as Error).name === 'ChangeNotSent'
        ? '; the change was not applied'
        : '; the outcome is unknown (the change may have been applied); running it again is safe';
    throw new UsageError(`revocation.store: Redis did not answer (${(error as Error).name})${outcome}`);
  } finally {
    admin.close();
  }
}
