import { accessIssues, accessSchema, toAccessConfig, type AccessPolicy, type AccessValue } from './access-schema.js';
import { ConfigError, shownInError } from './config-error.js';
import type { AuthMode } from './defaults.js';

/**
 * Checks an `access` table given apart from a config (`access.candidate`'s file) by the rules of
 * the config's own `access` section, for the modes of `auth.mode`. `at` names it in an issue's
 * path (`access.candidate`). A table of its own cannot name more tables: `tests` and `candidate`
 * are refused in it.
 *
 * @throws ConfigError naming every issue, at `<at>.<key>.<field>`
 * @example
 * const { access } = parseAccessTable(parseYaml(text), config.modes, 'access.candidate');
 */
export function parseAccessTable(
  raw: unknown,
  modes: readonly AuthMode[],
  at: string,
): { access: Readonly<Record<string, AccessValue>>; accessPolicy: AccessPolicy } {
  const where = (path: readonly PropertyKey[]) => [at, ...path.map((part) => shownInError(String(part)))].join('.');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError({ path: at, message: 'must be a mapping of access keys, as the access section' });
  }
  const parsed = accessSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => ({ path: where(issue.path), message: issue.message })));
  }
  const issues = accessIssues(parsed.data, modes).map(({ path, message }) => ({ path: where(path), message }));
  for (const field of ['tests', 'candidate'] as const) {
    if (field in parsed.data)
      issues.push({ path: where([field]), message: 'is a field of the config, not of a table' });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return toAccessConfig(parsed.data);
}
