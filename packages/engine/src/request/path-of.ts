/** The path of a request target, without its query (`/` for an empty one), as routers take it. */
export function pathOf(target: string | undefined): string {
  const whole = target ?? '/';
  const query = whole.indexOf('?');
  const path = query === -1 ? whole : whole.slice(0, query);
  return path === '' ? '/' : path;
}
