import { describe, expect, it } from 'vitest';
import { isValidEmail, normaliseEmail } from './email.ts';

const longestLocalPart = 'l'.repeat(64);
const longestLabel = 'd'.repeat(63);
// 64 + 1 + 63 + 1 + 63 + 1 + 61 = 254 characters, the maximum.
const longestEmail = `${longestLocalPart}@${longestLabel}.${longestLabel}.${'e'.repeat(61)}`;

describe('isValidEmail', () => {
  it.each([
    { value: 'jessica.wood@example.com', reason: 'ordinary address' },
    { value: 'a@b.co', reason: 'shortest realistic address' },
    { value: 'first.last+erx@mail.example.com.au', reason: 'plus tag and sub-domains' },
    { value: 'Jessica.Wood@Example.COM', reason: 'mixed case' },
    { value: 'ops@my-clinic.example', reason: 'hyphen inside a label' },
    { value: 'ops@xn--bcher-kva.example', reason: 'punycode label' },
    { value: `${longestLocalPart}@example.com`, reason: '64-character local part' },
    { value: `ops@${longestLabel}.com`, reason: '63-character label' },
    { value: longestEmail, reason: '254 characters' },
  ])('accepts $reason', ({ value }) => {
    expect(isValidEmail(value)).toBe(true);
  });

  it.each([
    { value: '', reason: 'empty string' },
    { value: 'jessica.wood.example.com', reason: 'no @' },
    { value: '@example.com', reason: 'empty local part' },
    { value: 'jessica@', reason: 'empty domain' },
    { value: 'jessica@wood@example.com', reason: 'two @' },
    { value: 'jessica@localhost', reason: 'domain without a dot' },
    { value: 'jessica@-example.com', reason: 'label starting with a hyphen' },
    { value: 'jessica@example-.com', reason: 'label ending with a hyphen' },
    { value: 'jessica@example..com', reason: 'empty label' },
    { value: 'jessica@.example.com', reason: 'domain starting with a dot' },
    { value: 'jessica@example.com.', reason: 'domain ending with a dot' },
    { value: 'jessica@exa_mple.com', reason: 'underscore in the domain' },
    { value: 'jessica@[192.0.2.1]', reason: 'address literal' },
    { value: 'jessica wood@example.com', reason: 'space in the local part' },
    { value: 'jessica@example .com', reason: 'space in the domain' },
    { value: ' jessica@example.com', reason: 'leading space' },
    { value: 'jessica@example.com ', reason: 'trailing space' },
    { value: 'jessica@example.com\n', reason: 'trailing newline' },
    { value: `${longestLocalPart}l@example.com`, reason: '65-character local part' },
    { value: `ops@${longestLabel}d.com`, reason: '64-character label' },
    { value: `${longestEmail}e`, reason: '255 characters' },
  ])('rejects $reason', ({ value }) => {
    expect(isValidEmail(value)).toBe(false);
  });
});

describe('normaliseEmail', () => {
  it.each([
    { value: 'Jessica.Wood@Example.COM', normalised: 'jessica.wood@example.com' },
    { value: '  ops@example.com\t', normalised: 'ops@example.com' },
    { value: 'ops@example.com', normalised: 'ops@example.com' },
  ])('trims and lower-cases "$value"', ({ value, normalised }) => {
    expect(normaliseEmail(value)).toBe(normalised);
  });

  it('turns a padded address into one that passes isValidEmail', () => {
    expect(isValidEmail(' Ops@Example.com ')).toBe(false);
    expect(isValidEmail(normaliseEmail(' Ops@Example.com '))).toBe(true);
  });
});
