// Apart from the limiters: it imports no optional peer, so the adapters may import it eagerly.

/** The UTC calendar day or month of `ms`: its id, its end, and its length in seconds. */
export function periodOf(ms: number, per: 'day' | 'month'): { id: string; end: number; seconds: number } {
  const at = new Date(ms);
  const [year, month, day] = [at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()];
  const start = per === 'day' ? Date.UTC(year, month, day) : Date.UTC(year, month, 1);
  const end = per === 'day' ? Date.UTC(year, month, day + 1) : Date.UTC(year, month + 1, 1);
  const id = new Date(start).toISOString().slice(0, per === 'day' ? 10 : 7);
  return { id, end, seconds: (end - start) / 1000 };
}
