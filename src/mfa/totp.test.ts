import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchTotp, totpAt } from './totp.ts';

// RFC 6238 Appendix B: the seeds are ASCII "1234567890" repeated to 20, 32 and 64 bytes.
const SEEDS = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
} as const;

const RFC6238_VECTORS: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('RFC 6238 TOTP', () => {
  it.each(RFC6238_VECTORS)('at %i s gives the RFC test vectors for SHA-1, SHA-256 and SHA-512', (seconds, sha1, sha256, sha512) => {
    const at = new Date(seconds * 1000);
    expect(totpAt(SEEDS.sha1, at, 8, 'sha1')).toBe(sha1);
    expect(totpAt(SEEDS.sha256, at, 8, 'sha256')).toBe(sha256);
    expect(totpAt(SEEDS.sha512, at, 8, 'sha512')).toBe(sha512);
  });

  it('gives the RFC 4226 HOTP vectors at 6 digits', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
    expect(expected.map((_, counter) => hotp(SEEDS.sha1, counter))).toEqual(expected);
  });

  it('accepts one step of drift either side, refuses two, and refuses a step not after the last accepted', () => {
    const at = new Date(1111111111 * 1000);
    const step = Math.floor(1111111111 / 30);
    expect(matchTotp(SEEDS.sha1, hotp(SEEDS.sha1, step), at, null)).toBe(step);
    expect(matchTotp(SEEDS.sha1, hotp(SEEDS.sha1, step - 1), at, null)).toBe(step - 1);
    expect(matchTotp(SEEDS.sha1, hotp(SEEDS.sha1, step + 1), at, null)).toBe(step + 1);
    expect(matchTotp(SEEDS.sha1, hotp(SEEDS.sha1, step - 2), at, null)).toBeUndefined();
    expect(matchTotp(SEEDS.sha1, hotp(SEEDS.sha1, step + 2), at, null)).toBeUndefined();
    expect(matchTotp(SEEDS.sha1, hotp(SEEDS.sha1, step), at, step)).toBeUndefined();
    expect(matchTotp(SEEDS.sha1, hotp(SEEDS.sha1, step - 1), at, step - 1)).toBeUndefined();
    expect(matchTotp(SEEDS.sha1, '12345', at, null)).toBeUndefined();
    expect(matchTotp(SEEDS.sha1, 'abcdef', at, null)).toBeUndefined();
  });

  it('round-trips base32 (RFC 4648 vectors)', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI').toString()).toBe('foobar');
    expect(base32Decode(base32Encode(SEEDS.sha1)).equals(SEEDS.sha1)).toBe(true);
  });
});
