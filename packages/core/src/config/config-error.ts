/** One broken rule of the config: the field's path (`auth.api_keys.header`) and what is wrong. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * A config that cannot be used, or key material that is missing. Start-up only: a request never
 * sees it. `message` lists every issue on one line, `path: message; path: message`, and never
 * holds a secret's value.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[] | ConfigIssue) {
    const list = Object.freeze(Array.isArray(issues) ? [...issues] : [issues as ConfigIssue]);
    super(list.map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`)).join('; '));
    this.issues = list;
  }

  /** The first issue's path, for callers that only need one. */
  get path(): string {
    return this.issues[0]?.path ?? '';
  }
}

/** True for a {@link ConfigError}, also one made by another copy of this package. */
export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof Error && error.name === 'ConfigError' && Array.isArray((error as ConfigError).issues);
}

/** Longest text from the config file that an error message repeats. */
const SHOWN_MAX = 64;

/** Text from the config file as an error may repeat it: cut after 64 characters (`...`). */
export function shownInError(text: string): string {
  return text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX)}...` : text;
}
