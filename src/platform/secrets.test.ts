import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretChecker, decryptSecret, encryptSecret, generateSecret, hashSecret, parseSecretKey, secretMatchesHash } from './secrets.ts';

describe('secrets', () => {
  it('generates 32-byte secrets, with an optional prefix', () => {
    expect(Buffer.from(generateSecret(), 'base64url')).toHaveLength(32);
    expect(generateSecret('whsec_')).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateSecret()).not.toBe(generateSecret());
  });

  it('matches a secret only against its own hash', () => {
    const secret = generateSecret();
    expect(secretMatchesHash(secret, hashSecret(secret))).toBe(true);
    expect(secretMatchesHash(`${secret}x`, hashSecret(secret))).toBe(false);
    expect(secretMatchesHash(secret, 'abcd')).toBe(false);
    expect(hashSecret(secret)).not.toContain(secret);
  });

  it('checks like secretMatchesHash when it remembers matches, and still refuses a remembered secret for another hash', () => {
    const check = createSecretChecker(2);
    const [a, b, c] = [generateSecret(), generateSecret(), generateSecret()];
    for (let round = 0; round < 2; round++) {
      expect(check(a, hashSecret(a))).toBe(true);
      expect(check(a, hashSecret(b))).toBe(false); // the hash changed (a new secret was issued)
      expect(check(`${a}x`, hashSecret(a))).toBe(false);
      expect(check(b, hashSecret(b))).toBe(true);
      expect(check(c, hashSecret(c))).toBe(true); // beyond the limit: the oldest is forgotten, none is wrong
      expect(check(b, hashSecret(a))).toBe(false);
    }
  });

  it('encrypts so that only the same key decrypts, and detects tampering', () => {
    const key = randomBytes(32);
    const sealed = encryptSecret('whsec_example', key);
    expect(sealed).not.toContain('whsec_example');
    expect(encryptSecret('whsec_example', key)).not.toBe(sealed);
    expect(decryptSecret(sealed, key)).toBe('whsec_example');
    expect(() => decryptSecret(sealed, randomBytes(32))).toThrow();
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => decryptSecret([v, iv, tag, flipped.toString('base64url')].join('.'), key)).toThrow();
  });

  it('accepts only a 32-byte base64 key', () => {
    expect(parseSecretKey(randomBytes(32).toString('base64'))).toHaveLength(32);
    expect(() => parseSecretKey(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
