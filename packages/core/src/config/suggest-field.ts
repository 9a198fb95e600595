import type { z } from 'zod';

/** What `_zod.def` holds for the wrappers and containers the config schema uses. */
interface Def {
  readonly type: string;
  readonly innerType?: z.core.$ZodType;
  readonly element?: z.core.$ZodType;
  readonly shape?: Readonly<Record<string, z.core.$ZodType>>;
  readonly catchall?: z.core.$ZodType;
  readonly options?: readonly z.core.$ZodType[];
  readonly in?: z.core.$ZodType;
}

const defOf = (schema: z.core.$ZodType): Def => schema._zod.def as unknown as Def;

/** The field names the schema knows at `path` (an object's keys), or none. */
export function knownFields(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  let def = defOf(schema);
  for (const part of [...path, null]) {
    // default, prefault, nullable, optional, pipe...: look through to what they wrap.
    def = unwrap(def);
    if (part === null) break;
    const next = typeof part === 'number' ? def.element : (def.shape?.[String(part)] ?? def.catchall);
    if (next === undefined) return [];
    def = defOf(next);
  }
  return def.shape === undefined ? [] : Object.keys(def.shape);
}

/** Through wrappers (default, optional, pipe, ...) and to the one object of a union (`access` values). */
function unwrap(def: Def): Def {
  for (;;) {
    if (def.innerType !== undefined) def = defOf(def.innerType);
    else if (def.type === 'pipe' && def.in !== undefined) def = defOf(def.in);
    else if (def.options !== undefined) {
      const object = def.options.map(defOf).find((option) => unwrap(option).shape !== undefined);
      if (object === undefined) return def;
      def = object;
    } else return def;
  }
}

/**
 * The known field closest to an unknown one, when it is close enough to be a typo: at most two
 * edits (one for names of four letters or fewer), case ignored. `allow_barer` → `allow_bearer`.
 */
export function suggestField(unknown: string, known: readonly string[]): string | undefined {
  if (unknown.length > 64) return undefined;
  const limit = unknown.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const distance = editDistance(unknown.toLowerCase(), candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best;
}

/** Levenshtein distance, with a transposition counted as one edit (`hedaer` → `header`). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j += 1) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
