import { resolve } from 'node:path';
import type { AuthConfig } from './auth-config.js';

/**
 * Every file a config names for key material (absolute paths, each once): what `reload.watch`
 * watches beside the config file itself.
 */
export function keyFilesOf(config: AuthConfig): string[] {
  const { jwt, oauth2 } = config;
  const files = [
    jwt.publicKeyFile,
    ...jwt.providers.map((provider) => provider.publicKeyFile),
    oauth2.clientSecretFile,
  ];
  return [...new Set(files.filter((file): file is string => file !== null).map((file) => resolve(file)))];
}
