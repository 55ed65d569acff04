// The SSRF guard's address classifier, as a table: every refused range in IPv4 and IPv6, the
// IPv6 forms that carry an IPv4 address, and public addresses on either side of each boundary.
import { describe, expect, it } from 'vitest';
import { classifyAddress, describeVerdict, isPublicAddress } from '../../src/webhooks/webhook-address-guard.ts';
import { assertPublicAddresses, BlockedAddressError, createConnectLookup, guardLiteralHost } from '../../src/webhooks/webhook-host-resolution.ts';

describe('classifyAddress', () => {
  it.each([
    // IPv4
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link_local'],
    ['169.254.0.1', 'link_local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['192.0.0.170', 'reserved'],
    ['192.0.2.7', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    // IPv4 public, including the addresses just outside refused ranges
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['11.0.0.1', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['169.253.255.255', 'public'],
    ['192.167.255.255', 'public'],
    ['223.255.255.255', 'public'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['febf::1', 'link_local'],
    ['fec0::1', 'link_local'],
    ['ff02::1', 'multicast'],
    ['ff05::1:3', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['64:ff9b:1::1', 'reserved'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001::200e', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address).kind).toBe(kind);
    expect(isPublicAddress(address)).toBe(kind === 'public');
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'loopback', 'IPv4-mapped'],
    ['::ffff:169.254.169.254', 'link_local', 'IPv4-mapped'],
    ['::ffff:10.1.2.3', 'private', 'IPv4-mapped'],
    ['::ffff:100.64.0.1', 'cgnat', 'IPv4-mapped'],
    ['::ffff:0.0.0.0', 'unspecified', 'IPv4-mapped'],
    ['::ffff:224.0.0.1', 'multicast', 'IPv4-mapped'],
    ['::ffff:0:192.168.0.1', 'private', 'IPv4-translated'],
    ['::127.0.0.1', 'loopback', 'IPv4-compatible'],
    ['64:ff9b::127.0.0.1', 'loopback', 'NAT64'],
    ['64:ff9b::a9fe:a9fe', 'link_local', 'NAT64'],
    ['64:ff9b::192.168.1.1', 'private', 'NAT64'],
    ['2002:7f00:1::', 'loopback', '6to4'],
    ['2002:c0a8:101::1', 'private', '6to4'],
    ['::ffff:8.8.8.8', 'public', 'IPv4-mapped'],
    ['64:ff9b::8.8.8.8', 'public', 'NAT64'],
    ['2002:808:808::1', 'public', '6to4'],
  ])('%s carries an IPv4 address that is %s (%s)', (address, kind, form) => {
    expect(classifyAddress(address)).toEqual({ kind, form });
  });

  it.each(['', 'localhost', '256.1.1.1', '1.2.3', 'example.com', '::g'])('%j is not an address', (text) => {
    expect(classifyAddress(text).kind).toBe('invalid');
    expect(isPublicAddress(text)).toBe(false);
  });

  it('describes a verdict for the attempt log', () => {
    expect(describeVerdict(classifyAddress('::ffff:169.254.169.254'))).toBe('link_local (IPv4-mapped)');
    expect(describeVerdict(classifyAddress('10.0.0.1'))).toBe('private');
  });
});

describe('the guard around resolution', () => {
  it('refuses a host when any one of its addresses is not public', () => {
    expect(() => assertPublicAddresses('mixed.example', [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }])).toThrow(
      /mixed\.example resolves to 10\.0\.0\.5, a private address/,
    );
    expect(() => assertPublicAddresses('public.example', [{ address: '93.184.216.34', family: 4 }, { address: '2606:4700::1', family: 6 }])).not.toThrow();
  });

  it('judges IP literals, which no lookup will see', () => {
    expect(() => guardLiteralHost('[::ffff:127.0.0.1]')).toThrow(BlockedAddressError);
    expect(() => guardLiteralHost('169.254.169.254')).toThrow(/link_local/);
    expect(() => guardLiteralHost('93.184.216.34')).not.toThrow();
    expect(() => guardLiteralHost('hooks.example')).not.toThrow();
  });

  it('gives the socket only addresses it passed, in the shape Node asks for', async () => {
    const resolve = async (host: string) =>
      host === 'ok.example' ? [{ address: '93.184.216.34', family: 4 }, { address: '2606:4700::1', family: 6 }] : [{ address: '127.0.0.1', family: 4 }];
    const lookup = createConnectLookup(resolve, true);
    const ask = (host: string, options: object) =>
      new Promise<{ error: NodeJS.ErrnoException | null; result: unknown }>((done) =>
        lookup(host, options as never, (error: NodeJS.ErrnoException | null, address: unknown, family?: number) => done({ error, result: family === undefined ? address : [address, family] })),
      );
    expect(await ask('ok.example', { all: true })).toEqual({ error: null, result: [{ address: '93.184.216.34', family: 4 }, { address: '2606:4700::1', family: 6 }] });
    expect(await ask('ok.example', { family: 6 })).toEqual({ error: null, result: ['2606:4700::1', 6] });
    const refused = await ask('rebound.example', { all: true });
    expect(refused.error).toBeInstanceOf(BlockedAddressError);
    expect(refused.error?.code).toBe('ERR_WEBHOOK_BLOCKED_ADDRESS');
    // Without the guard (sandbox) the same answer is handed on.
    const open = createConnectLookup(resolve, false);
    const passed = await new Promise((done) => open('rebound.example', { all: true } as never, (error, addresses) => done({ error, addresses })));
    expect(passed).toEqual({ error: null, addresses: [{ address: '127.0.0.1', family: 4 }] });
  });
});
