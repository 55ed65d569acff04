// Which addresses a production webhook may connect to (the SSRF guard): only public unicast.
// Every range below is refused, in IPv4 and IPv6, and so is any IPv6 form that carries an IPv4
// address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) whose IPv4 address is refused. In IPv6
// only global unicast (2000::/3) can be public at all.
import { isIP } from 'node:net';

export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'multicast'
  | 'documentation'
  | 'reserved'
  | 'invalid';

interface Range {
  cidr: string;
  kind: Exclude<AddressKind, 'public' | 'invalid'>;
}

/** A range whose addresses carry an IPv4 address at `offset` (bytes): judged by that address. */
interface EmbeddingRange {
  cidr: string;
  embedsIpv4At: number;
  form: string;
}

const IPV4_RANGES: Range[] = [
  { cidr: '0.0.0.0/8', kind: 'unspecified' },
  { cidr: '10.0.0.0/8', kind: 'private' },
  { cidr: '100.64.0.0/10', kind: 'cgnat' },
  { cidr: '127.0.0.0/8', kind: 'loopback' },
  { cidr: '169.254.0.0/16', kind: 'link_local' }, // cloud metadata (169.254.169.254) included
  { cidr: '172.16.0.0/12', kind: 'private' },
  { cidr: '192.0.0.0/24', kind: 'reserved' }, // IETF protocol assignments, NAT64 discovery
  { cidr: '192.0.2.0/24', kind: 'documentation' },
  { cidr: '192.88.99.0/24', kind: 'reserved' }, // 6to4 relay anycast
  { cidr: '192.168.0.0/16', kind: 'private' },
  { cidr: '198.18.0.0/15', kind: 'reserved' }, // benchmarking
  { cidr: '198.51.100.0/24', kind: 'documentation' },
  { cidr: '203.0.113.0/24', kind: 'documentation' },
  { cidr: '224.0.0.0/4', kind: 'multicast' },
  { cidr: '240.0.0.0/4', kind: 'reserved' }, // and the broadcast address
];

// Checked in order: the exact addresses before the /96 they sit in.
const IPV6_RANGES: Array<Range | EmbeddingRange> = [
  { cidr: '::/128', kind: 'unspecified' },
  { cidr: '::1/128', kind: 'loopback' },
  { cidr: '::ffff:0:0/96', embedsIpv4At: 12, form: 'IPv4-mapped' },
  { cidr: '::ffff:0:0:0/96', embedsIpv4At: 12, form: 'IPv4-translated' },
  { cidr: '::/96', embedsIpv4At: 12, form: 'IPv4-compatible' },
  { cidr: '64:ff9b::/96', embedsIpv4At: 12, form: 'NAT64' },
  { cidr: '64:ff9b:1::/48', kind: 'reserved' }, // local-use NAT64: translates to anything
  { cidr: '100::/64', kind: 'reserved' }, // discard-only
  { cidr: '2001::/32', kind: 'reserved' }, // Teredo: tunnels to an IPv4 address
  { cidr: '2001:db8::/32', kind: 'documentation' },
  { cidr: '2002::/16', embedsIpv4At: 2, form: '6to4' },
  { cidr: 'fc00::/7', kind: 'private' }, // unique local
  { cidr: 'fe80::/10', kind: 'link_local' },
  { cidr: 'fec0::/10', kind: 'link_local' }, // site-local (deprecated)
  { cidr: 'ff00::/8', kind: 'multicast' },
];

const GLOBAL_UNICAST_V6 = '2000::/3';

export interface AddressVerdict {
  kind: AddressKind;
  /** Set when the kind was read from an IPv4 address carried in an IPv6 one. */
  form?: string;
}

/** Classifies an IP address (IPv4 dotted quad, or IPv6 with an optional zone). */
export function classifyAddress(address: string): AddressVerdict {
  const bytes = parseAddress(address);
  if (!bytes) return { kind: 'invalid' };
  return bytes.length === 4 ? classifyIpv4(bytes) : classifyIpv6(bytes);
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).kind === 'public';
}

/** "loopback" or "loopback (IPv4-mapped)", for messages and the attempt log. */
export function describeVerdict(verdict: AddressVerdict): string {
  return verdict.form ? `${verdict.kind} (${verdict.form})` : verdict.kind;
}

function classifyIpv4(bytes: Uint8Array): AddressVerdict {
  const range = IPV4_RANGES.find((r) => inRange(bytes, r.cidr));
  return { kind: range ? range.kind : 'public' };
}

function classifyIpv6(bytes: Uint8Array): AddressVerdict {
  for (const range of IPV6_RANGES) {
    if (!inRange(bytes, range.cidr)) continue;
    if ('kind' in range) return { kind: range.kind };
    const inner = classifyIpv4(bytes.subarray(range.embedsIpv4At, range.embedsIpv4At + 4));
    return { kind: inner.kind, form: range.form };
  }
  return { kind: inRange(bytes, GLOBAL_UNICAST_V6) ? 'public' : 'reserved' };
}

const parsedRanges = new Map<string, { prefix: Uint8Array; bits: number }>();

function inRange(bytes: Uint8Array, cidr: string): boolean {
  let range = parsedRanges.get(cidr);
  if (!range) {
    const [base, bits] = cidr.split('/');
    range = { prefix: parseAddress(base!)!, bits: Number(bits) };
    parsedRanges.set(cidr, range);
  }
  if (range.prefix.length !== bytes.length) return false;
  for (let bit = 0; bit < range.bits; bit += 8) {
    const take = Math.min(8, range.bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (range.prefix[bit / 8]! & mask)) return false;
  }
  return true;
}

/** 4 bytes for IPv4, 16 for IPv6 (zone dropped), undefined for anything else. */
export function parseAddress(text: string): Uint8Array | undefined {
  const address = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split('.').map(Number));
  if (family === 6) return parseIpv6(address);
  return undefined;
}

function parseIpv6(address: string): Uint8Array {
  let text = address.toLowerCase();
  // A trailing dotted quad becomes two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}
