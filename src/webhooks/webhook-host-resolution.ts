// Name resolution for webhook endpoints, and the SSRF guard applied to it. In production the
// guard runs when a connection is made (inside the socket's own lookup), not only when the URL
// is registered, so a name that later resolves to a private address is refused. A host given as
// an IP literal is never looked up, so it is judged before connecting (guardLiteralHost).
import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress, describeVerdict } from './webhook-address-guard.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to (tests substitute their own table). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemHostResolver: HostResolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export const BLOCKED_ADDRESS_CODE = 'ERR_WEBHOOK_BLOCKED_ADDRESS';

/** The guard refused an address; recorded as blocked_address, never retried. */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  readonly code = BLOCKED_ADDRESS_CODE;
}

/** Throws BlockedAddressError unless every address is public: one private answer is enough to refuse. */
export function assertPublicAddresses(hostname: string, addresses: readonly ResolvedAddress[]): void {
  for (const { address } of addresses) {
    const verdict = classifyAddress(address);
    if (verdict.kind !== 'public') {
      const via = address === hostname ? '' : `${hostname} resolves to `;
      throw new BlockedAddressError(`${via}${address}, a ${describeVerdict(verdict)} address; only public addresses are allowed`);
    }
  }
}

/** Strips the brackets of an IPv6 literal as URL.hostname keeps them. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1');
}

/** For a host given as an IP literal (no lookup will run): throws BlockedAddressError unless public. */
export function guardLiteralHost(hostname: string): void {
  const host = bareHost(hostname);
  const family = isIP(host);
  if (family !== 0) assertPublicAddresses(host, [{ address: host, family }]);
}

/** Resolves a name, or takes a literal as it is. */
export async function resolveHost(resolve: HostResolver, hostname: string): Promise<ResolvedAddress[]> {
  const host = bareHost(hostname);
  const family = isIP(host);
  return family === 0 ? resolve(host) : [{ address: host, family }];
}

/**
 * A `lookup` for net/tls.connect that resolves with `resolve` and, when `guard` is on, fails
 * with BlockedAddressError if any address is not public. Node asks for every address (`all`)
 * when it races IPv4 and IPv6 (autoSelectFamily), else for one.
 */
export function createConnectLookup(resolve: HostResolver, guard: boolean): LookupFunction {
  return (hostname, options, callback) => {
    pickAddresses(resolve, guard, hostname, familyNumber(options.family)).then(
      (addresses) => {
        if (options.all) (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

function familyNumber(family: number | 'IPv4' | 'IPv6' | undefined): number | undefined {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family || undefined;
}

async function pickAddresses(resolve: HostResolver, guard: boolean, hostname: string, family: number | undefined): Promise<ResolvedAddress[]> {
  const addresses = await resolve(hostname);
  if (guard) assertPublicAddresses(hostname, addresses);
  const wanted = family ? addresses.filter((a) => a.family === family) : addresses;
  if (wanted.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
  return wanted;
}
