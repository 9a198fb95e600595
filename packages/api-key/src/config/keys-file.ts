import { resolve } from 'node:path';
import { CORE_SCHEMA, load } from 'js-yaml';
import { z } from 'zod';
import { ConfigError, readSecretFile, type ConfigIssue } from '@authlayer/core';
import { shownInError } from '@authlayer/core/internal';
import { apiKeyEntrySchema } from './api-keys-section.js';

/** `keys_file` holds thousands of entries of about 150 bytes: 64 MiB is far past any real one. */
const KEYS_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** One entry of `auth.api_keys.keys_file`: the key's hex SHA-256 in place of a variable. */
const fileEntrySchema = apiKeyEntrySchema
  .pick({ name: true, roles: true, tenant_id: true, expires: true, created: true })
  .extend({ sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits (the SHA-256 of the key)') })
  .strict();

const fileSchema = z.array(fileEntrySchema);

/** One entry of a `keys_file`, in camelCase; `sha256` is the digest's 32 bytes. */
export interface ApiKeyFileEntry {
  readonly name: string;
  readonly sha256: Buffer;
  /** `undefined` when the entry does not say (another entry of the name may). */
  readonly roles: readonly string[] | undefined;
  readonly tenantId: string | null | undefined;
  readonly expires: string | null;
  readonly created: string | null;
}

/**
 * Reads `auth.api_keys.keys_file`: a YAML list of `{name, sha256, roles, tenant_id, expires,
 * created}` (YAML 1.2 core schema). An empty list (`[]`) is allowed: it configures no key.
 *
 * @param field - the config path named in errors (`auth.api_keys.keys_file`)
 * @throws ConfigError naming the field, the file and, for a broken entry, its index and field
 *   (`auth.api_keys.keys_file[3].sha256: must be 64 hex digits ...`), never a digest
 */
export function readApiKeysFile(path: string, field = 'auth.api_keys.keys_file'): ApiKeyFileEntry[] {
  const absolute = resolve(path);
  const text = readSecretFile(absolute, field, KEYS_FILE_MAX_BYTES);
  let raw: unknown;
  try {
    // js-yaml, not the `yaml` package core reads the config file with: about ten times faster on
    // 10 000 entries (docs/design/live-reload.md), and loaded only by this mode. YAML 1.2's core schema: dates stay strings, only
    // true/false are booleans; an unknown tag or a repeated key is an error.
    raw = load(text, { schema: CORE_SCHEMA, filename: absolute });
  } catch (error) {
    const line = (error as { mark?: { line?: number } }).mark?.line;
    const where = line === undefined ? '' : `, line ${line + 1}`;
    throw new ConfigError({ path: field, message: `${absolute}${where}: not valid YAML` });
  }
  const result = fileSchema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    const issues = result.error.issues.map((issue) => toIssue(issue, field, absolute));
    throw new ConfigError(issues.slice(0, 10));
  }
  return result.data.map((entry) => ({
    name: entry.name,
    sha256: Buffer.from(entry.sha256, 'hex'),
    roles: entry.roles,
    tenantId: entry.tenant_id,
    expires: entry.expires,
    created: entry.created,
  }));
}

function toIssue(issue: z.core.$ZodIssue, field: string, file: string): ConfigIssue {
  let path = field;
  for (const part of issue.path) path += typeof part === 'number' ? `[${part}]` : `.${shownInError(String(part))}`;
  let message: string;
  if (issue.code === 'unrecognized_keys') message = `unknown field ${issue.keys.map(shownInError).join(', ')}`;
  // `sha256: 1234...` of digits only (or `12e4...`) is a number to YAML: its digits are lost.
  else if (issue.code === 'invalid_type' && issue.path.at(-1) === 'sha256' && typeof issue.input === 'number')
    message = 'must be 64 hex digits in quotes (YAML read this one as a number)';
  else if (issue.code === 'invalid_type')
    message =
      issue.input === undefined
        ? 'is required'
        : `must be ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
  else message = issue.message;
  return { path, message: `${message} (in ${file})` };
}
