/** What kind of thing was thrown, for a log line: never its message, which may hold anything. */
export function kindOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
