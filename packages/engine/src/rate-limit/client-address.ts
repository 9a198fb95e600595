import { isIP } from 'node:net';

/** The last peer address asked for, normalised (`unknown`: not an IP address). */
let last = { raw: '', address: 'unknown' };

/**
 * The client address a failed-auth limit counts, normalised so that one client is one bucket.
 *
 * - `trustProxy` `false` (or 0): the socket's peer.
 * - `true` (one proxy) or a number of proxies `n`: the entry of `X-Forwarded-For` that the
 *   nearest trusted proxy wrote, as Express's `trust proxy` with a hop count reads it: the `n`-th
 *   entry from the right (the leftmost when there are fewer). Entries to its left were written
 *   by the client and are never read, so a client cannot choose its bucket, behind an appending
 *   proxy too.
 * - Normalised: `::ffff:a.b.c.d` → `a.b.c.d`, a port (`a.b.c.d:5555`, `[::1]:80`) dropped, an
 *   IPv6 address cut to its /64 (one subscriber's prefix). An entry that is not an IP address
 *   counts as the peer it came through.
 *
 * @example
 * clientAddress(req, 1); // XFF "203.0.113.9, 198.51.100.7" from the proxy → "198.51.100.7"
 */
export function clientAddress(
  req: {
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
    readonly socket?: { readonly remoteAddress?: string };
  },
  trustProxy: boolean | number,
): string {
  const raw = req.socket?.remoteAddress ?? '';
  // A keep-alive connection asks for the same address request after request: compared, not looked up.
  if (raw !== last.raw) last = { raw, address: normaliseAddress(raw) ?? 'unknown' };
  const peer = last.address;
  const hops = trustProxy === true ? 1 : trustProxy === false ? 0 : trustProxy;
  if (hops < 1) return peer;
  const header = req.headers['x-forwarded-for'];
  const entries = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return peer;
  const chosen = entries[Math.max(entries.length - hops, 0)] as string;
  return normaliseAddress(chosen) ?? peer;
}

// Every request of a limited route asks for its address, and a keep-alive connection's peer is the
// same string each time: a bounded memo saves the parse (a regular expression and isIP). Emptied
// when full, so addresses a client chooses (X-Forwarded-For) can only make it miss.
const normalised = new Map<string, string | null>();
const MEMO_ENTRIES = 1024;

/** An address as one bucket: IPv4 dotted, IPv6 as its /64; `null` when it is not an IP address. */
export function normaliseAddress(raw: string): string | null {
  let address = normalised.get(raw);
  if (address !== undefined) return address;
  if (normalised.size >= MEMO_ENTRIES) normalised.clear();
  address = parseAddress(raw);
  normalised.set(raw, address);
  return address;
}

function parseAddress(raw: string): string | null {
  let address = raw;
  // [v6]:port, or v4:port (a v6 address has more than one colon).
  if (address.startsWith('[')) {
    const end = address.indexOf(']');
    address = address.slice(1, end === -1 ? undefined : end);
  } else if (address.split(':').length === 2) address = address.slice(0, address.indexOf(':'));
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) address = mapped[1] as string;
  const version = isIP(address);
  if (version === 4) return address;
  if (version === 6) return `${expandIPv6(address).slice(0, 4).join(':')}::/64`;
  return null;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function expandIPv6(address: string): string[] {
  // split always yields a first part; `groups` takes the missing tail of an address without `::`.
  const [head, tail] = address.toLowerCase().split('::');
  const groups = (part: string | undefined) => (part === undefined || part === '' ? [] : part.split(':'));
  const left = groups(head).flatMap(ipv4AsGroups);
  const right = groups(tail).flatMap(ipv4AsGroups);
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}

/** An embedded IPv4 tail (`::1.2.3.4`) as two hex groups; any other group as it is. */
function ipv4AsGroups(group: string): string[] {
  if (!group.includes('.')) return [group];
  // isIP accepted the address: an embedded IPv4 part has exactly four numbers.
  const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
