// The routes the app registered, as Fastify's `onRoute` hook reports them, and the routes Fastify
// adds for them. Fastify reports the `HEAD` route it adds for a `GET` route (`exposeHeadRoutes`) as
// a route of its own, at a URL that is not always the GET route's: `child.get('/')` under
// `{ prefix: '/api' }` is reported as `GET /api`, `HEAD /api` and `HEAD /api/` (the slash variant
// of `prefixTrailingSlash: 'both'`); under `{ prefix: '/api/' }` and `'slash'`, as `GET /api//`
// and `HEAD /api/`. No rule on URLs alone (strip a `/`, add one) holds for every setting, so a HEAD
// route is tied to its GET route by identity: Fastify reports the HEAD routes it adds right after
// the GET route, with the very handler function the app gave for it. Such a HEAD route is under
// the keys of its GET route's URL as well as those of its own URL (every key that names it applies).
// An `onRoute` hook that replaces handlers, run before the plugin's, hides the tie: docs/fastify.md
// asks for the plugin to be registered first.

/** A route the app registered, as Fastify's `onRoute` hook tells it. */
export interface RegisteredRoute {
  /** Upper-case methods (a route of several methods is one route). */
  readonly methods: ReadonlySet<string>;
  /** The URL as registered, prefix included (`/reports/:id`, `/files/*`). */
  readonly url: string;
}

/** What of Fastify's route options the book reads. */
export interface ReportedRoute {
  readonly method: string | readonly string[];
  readonly url: string;
  readonly handler: unknown;
}

/** True when two URLs are one route's, or differ by one trailing `/` (a prefix root's variants). */
function sameRoot(a: string, b: string): boolean {
  return a === b || a === `${b}/` || b === `${a}/`;
}

/** The registered routes of one app, and the GET route each HEAD route Fastify added serves. */
export class RouteBook {
  /** Every route reported, in order; the keys of `access` must name one of them. */
  readonly routes: RegisteredRoute[] = [];
  /** HEAD route URL → the URLs of the GET routes whose HEAD route Fastify added there. */
  readonly #getUrlsOfHead = new Map<string, string[]>();
  /** The last GET route reported, until a route that is not one of its HEAD routes is. */
  #lastGet: { readonly handler: unknown; readonly url: string } | null = null;

  /** Records a route `onRoute` reported. */
  record(route: ReportedRoute): void {
    const methods = new Set([route.method].flat().map((method) => method.toUpperCase()));
    this.routes.push({ methods, url: route.url });
    const get = this.#lastGet;
    const addedHead =
      get !== null &&
      methods.size === 1 &&
      methods.has('HEAD') &&
      route.handler === get.handler &&
      sameRoot(route.url, get.url);
    if (addedHead) {
      const getUrls = this.#getUrlsOfHead.get(route.url) ?? [];
      if (route.url !== get.url && !getUrls.includes(get.url))
        this.#getUrlsOfHead.set(route.url, [...getUrls, get.url]);
      return;
    }
    this.#lastGet = methods.has('GET') ? { handler: route.handler, url: route.url } : null;
  }

  /**
   * The URLs whose keys name a route reached by `method` at `url` (as `request.routeOptions.url`
   * gives it): the URL itself, and for a HEAD route Fastify added, its GET route's URL.
   */
  urlsOf(method: string, url: string): readonly string[] {
    const getUrls = method === 'HEAD' ? this.#getUrlsOfHead.get(url) : undefined;
    return getUrls === undefined ? [url] : [url, ...getUrls];
  }
}
