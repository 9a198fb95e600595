import { sameAudience } from '../audience.js';
import { deepFreeze } from './deep-freeze.js';
import type { ResourceConfig } from './sections/resource.js';

/** A token mode's section, or one of its providers: what the resource's audience applies to. */
interface Audienced {
  readonly audience: string | null;
  readonly audienceStrict?: boolean;
}

/**
 * A token mode's section (and each of its `providers`) with `audience` set to the resource's
 * identifier where none is written (RFC 8707, as MCP requires: with a resource and no audience of
 * their own, the modes accept only tokens whose `aud` names this resource), and
 * `audienceStrict` where that audience is the resource's and `resource.audience_strict` is set.
 * Frozen, as the section it extends.
 */
export function withResourceAudience<T extends Audienced & { readonly providers?: readonly Audienced[] }>(
  section: T,
  resource: ResourceConfig | null,
): T {
  const identifier = resource?.identifier ?? null;
  if (identifier === null) return section;
  const strict = resource?.audienceStrict ?? false;
  const bind = <A extends Audienced>(part: A): A => {
    const audience = part.audience ?? identifier;
    return { ...part, audience, ...(strict && sameAudience(audience, identifier) ? { audienceStrict: true } : {}) };
  };
  if (section.providers === undefined) return deepFreeze(bind(section));
  return deepFreeze({ ...bind(section), providers: section.providers.map(bind) });
}
