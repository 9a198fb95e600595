import { checkRevocationEntry, checkRevocationTtl } from '@authlayer/express';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LOG_FORMATS, LOG_LEVELS, type LogSettings } from './logging.js';

/** What the command line and the environment ask for. */
export interface Settings {
  /** Absolute path of the YAML config. */
  readonly configPath: string;
  readonly port: number;
  readonly host: string;
  /** `--check`: validate the config and the key material, print the resolved settings, exit. */
  readonly check: boolean;
  /**
   * `--prefix P` with `--new-key`: a checksummed key `P_<32 base62>_<checksum>`; `null`: a plain one. Its
   * shape is checked by `newApiKey`, which asks the API key mode's package.
   */
  readonly newKeyPrefix: string | null;
  /** `--new-key`: print a new random API key and its SHA-256 for `hash_env`, exit. */
  readonly newKey: boolean;
  /** `--pid-file PATH` (absolute): where the serving process writes its id; `null`: nowhere. */
  readonly pidFile: string | null;
  /** `LOG_LEVEL` (default `info`) and `LOG_FORMAT` (default `json`; `pretty` for people). */
  readonly log: LogSettings;
  /** `METRICS=1` serves `GET /metrics`; `null` leaves it to the config's `metrics`. */
  readonly metrics: boolean | null;
  /** `WORKERS`: worker processes on one port (node:cluster). Default 1: no cluster. */
  readonly workers: number;
  /** `--help`: print {@link USAGE} and exit 0. */
  readonly help: boolean;
  /** `--revoke E [--ttl S]`, `--unrevoke E`, `--revocations`: change or list `revocation.store`, exit. */
  readonly revocation: RevocationCommand | null;
}

/** A change to the revocation list, or listing it (see `runRevocationCommand`). */
export type RevocationCommand =
  | { readonly verb: 'revoke'; readonly entry: string; readonly ttlSeconds: number }
  | { readonly verb: 'unrevoke'; readonly entry: string }
  | { readonly verb: 'list' };

/** The service's own config (API key mode), when none is given. */
export const DEFAULT_CONFIG = fileURLToPath(new URL('../service.yaml', import.meta.url));

/** A bad flag or variable: main.ts prints it on one line and exits 1. */
export class UsageError extends Error {}

/** What `--help` prints. */
export const USAGE = `Usage: npx -y pnpm@10.34.9 start [--config PATH] [--pid-file PATH] [--check] [--new-key [--prefix P]] [--help]
       node apps/service/dist/main.js [--config PATH] [--pid-file PATH] [--check] [--new-key [--prefix P]] [--help]
       node apps/service/dist/main.js [--config PATH] --revoke ENTRY [--ttl SECONDS] | --unrevoke ENTRY | --revocations
       authlayer test [--config PATH] [--coverage] TEST_FILE...
       authlayer explain [--config PATH] --as CALLER ("METHOD /path" | --mcp JSON)

The authlayer reference service: POST /invoke behind the configured authentication,
GET /healthz, GET /openapi.json, GET /docs.

Options:
  --config PATH   the YAML config (default: apps/service/service.yaml, API key mode);
                  a relative PATH is taken from the folder you ran the command in
  --pid-file PATH write the service's process id to PATH once it serves (removed when
                  it stops): kill -HUP "$(cat PATH)" reloads exactly this service
  --check         validate the config and its key material, print the resolved
                  settings as JSON (variables by name, never their values), exit
  --new-key       print a new random API key (32 bytes, base64url) and its SHA-256
                  for hash_env, exit (needs no config)
  --prefix P      with --new-key: a checksummed key P_<32 base62>_<checksum> (format: checksummed)
  --revoke ENTRY  revoke jti:<token id> or sub:<subject or API key client> in the
                  config's revocation.store: every replica answers 401 token_revoked
                  within 1 s; exit
  --ttl SECONDS   with --revoke: how long (default 86400, at most 2592000 = 30 days)
  --unrevoke ENTRY  end a revocation early on every replica, exit
  --revocations   print the revocations in force as JSON, exit
  -h, --help      print this help and exit

Policy (docs/policy-testing.md; no network, no secret: callers are taken as verified):
  test FILE...    run the test files' cases against the config's access table; exit 0
                  when all pass, 4 when a case failed, 3 when the config or a file is
                  invalid; --coverage lists the keys no case reached
  explain         every key that applied to one request, its verdict and deciding
                  field, then the answer; --as anonymous | api_key:NAME |
                  jwt:'{"sub":"u-1","roles":["admin"]}' | oauth2:'{...}'

Environment:
  SERVICE_CONFIG  the config, when --config is not given
  PORT            port to listen on (default 8080; 0 picks a free one)
  HOST            address to listen on (default 127.0.0.1)
  LOG_LEVEL       ${LOG_LEVELS.join(', ')} (default info)
  LOG_FORMAT      ${LOG_FORMATS.join(', ')} (default json)
  METRICS         1 serves GET /metrics (default: the config's metrics)
  WORKERS         worker processes on one port (default 1)
  SERVICE_API_KEY, <PREFIX>_API_KEY, the variable public_key_env names
                  key material, from the environment (or from the files that
                  key_file, keys_file, public_key_file and client_secret_file name)

Signals:
  SIGHUP          reload the config and its key files (every worker); a failure
                  keeps the old config and is logged, counted and shown on /healthz
  SIGTERM, SIGINT stop gracefully

npx -y pnpm@10.34.9 needs nothing installed but Node.js; --silent keeps pnpm's own
lines out of stdout, so that --check's JSON can be piped.

Examples:
  SERVICE_API_KEY=change-me-0123456789 npx -y pnpm@10.34.9 start
  JWT_PUBLIC_KEY="$(openssl pkey -in private.pem -pubout)" npx -y pnpm@10.34.9 start --config apps/service/examples/jwt.yaml
  PROD_API_KEY=change-me npx -y pnpm@10.34.9 --silent start --check --config apps/service/examples/api-key-prefix.yaml | jq .
  npx -y pnpm@10.34.9 --silent start --new-key
  npx -y pnpm@10.34.9 --silent start --new-key --prefix sk_live
  node apps/service/dist/main.js --config service.yaml --revoke sub:ada --ttl 3600
`;

/**
 * Reads argv and the environment. A relative config path is resolved against `INIT_CWD` (the
 * folder the user ran `pnpm start` in; pnpm sets it) or else the current directory, so
 * `pnpm start --config my.yaml` finds `./my.yaml` wherever the script itself runs.
 *
 * @throws UsageError naming the flag or variable that is wrong
 */
export function readSettings(argv: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): Settings {
  let values: {
    config?: string | undefined;
    check?: boolean | undefined;
    'new-key'?: boolean | undefined;
    prefix?: string | undefined;
    'pid-file'?: string | undefined;
    help?: boolean | undefined;
    revoke?: string | undefined;
    unrevoke?: string | undefined;
    revocations?: boolean | undefined;
    ttl?: string | undefined;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        check: { type: 'boolean' },
        'new-key': { type: 'boolean' },
        prefix: { type: 'string' },
        'pid-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        revoke: { type: 'string' },
        unrevoke: { type: 'string' },
        revocations: { type: 'boolean' },
        ttl: { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError(
      `${(error as Error).message} (usage: main.js [--config PATH] [--check] [--new-key [--prefix P]] [--help])`,
    );
  }
  if (values.prefix !== undefined && values['new-key'] !== true) throw new UsageError('--prefix goes with --new-key');
  const given = values.config ?? (env.SERVICE_CONFIG || undefined);
  const port = env.PORT === undefined || env.PORT === '' ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError('PORT must be an integer from 0 to 65535');
  return {
    configPath: given === undefined ? DEFAULT_CONFIG : resolve(env.INIT_CWD || cwd, given),
    port,
    host: env.HOST || '127.0.0.1',
    check: values.check === true,
    newKey: values['new-key'] === true,
    newKeyPrefix: values.prefix ?? null,
    pidFile: values['pid-file'] === undefined ? null : resolve(env.INIT_CWD || cwd, values['pid-file']),
    log: {
      level: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, 'info'),
      format: oneOf('LOG_FORMAT', env.LOG_FORMAT, LOG_FORMATS, 'json'),
    },
    metrics: readMetrics(env.METRICS),
    workers: readWorkers(env.WORKERS),
    help: values.help === true,
    revocation: readRevocationCommand(values),
  };
}

/** `--revoke`, `--unrevoke` or `--revocations` (one of them), checked before any connection. */
function readRevocationCommand(values: {
  revoke?: string | undefined;
  unrevoke?: string | undefined;
  revocations?: boolean | undefined;
  ttl?: string | undefined;
}): RevocationCommand | null {
  const given = (['revoke', 'unrevoke', 'revocations'] as const).filter((flag) => values[flag] !== undefined);
  if (given.length > 1)
    throw new UsageError(`give one of --revoke, --unrevoke and --revocations, not ${given.join(' and ')}`);
  if (values.ttl !== undefined && values.revoke === undefined) throw new UsageError('--ttl goes with --revoke');
  const entry = (value: string) => usage(() => checkRevocationEntry(value));
  if (values.revoke !== undefined) {
    const ttl = values.ttl === undefined ? undefined : /^\d{1,8}$/.test(values.ttl) ? Number(values.ttl) : NaN;
    return { verb: 'revoke', entry: entry(values.revoke), ttlSeconds: usage(() => checkRevocationTtl(ttl), '--ttl: ') };
  }
  if (values.unrevoke !== undefined) return { verb: 'unrevoke', entry: entry(values.unrevoke) };
  return values.revocations === true ? { verb: 'list' } : null;
}

/** A TypeError of a checker as a UsageError (one line, exit 1). */
function usage<T>(check: () => T, prefix = ''): T {
  try {
    return check();
  } catch (error) {
    throw new UsageError(`${prefix}${(error as Error).message}`);
  }
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${name} must be one of: ${allowed.join(', ')}`);
}

function readMetrics(value: string | undefined): boolean | null {
  if (value === undefined || value === '') return null;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new UsageError('METRICS must be 1 or 0 (true or false)');
}

function readWorkers(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > 256)
    throw new UsageError('WORKERS must be an integer from 1 to 256');
  return workers;
}
