import { describe, expect, it } from 'vitest';
import { isValidAustralianMobile, normaliseAustralianMobile } from './australian-mobile.ts';

const accepted = [
  { value: '0412345678', normalised: '0412345678', reason: 'domestic 04' },
  { value: '0512345678', normalised: '0512345678', reason: 'domestic 05' },
  { value: '0401100200', normalised: '0401100200', reason: 'ADHA electronic-communication test' },
  { value: '+61412345678', normalised: '0412345678', reason: '+61 with trunk 0 dropped' },
  { value: '61412345678', normalised: '0412345678', reason: '61 without plus' },
  { value: '+61512345678', normalised: '0512345678', reason: '+61 in the 05 range' },
];

const rejected = [
  { value: '+610412345678', reason: 'trunk 0 kept after +61' },
  { value: '610412345678', reason: 'trunk 0 kept after 61' },
  { value: '+61 412 345 678', reason: 'spaces' },
  { value: '0412 345 678', reason: 'spaces' },
  { value: '0412-345-678', reason: 'hyphens' },
  { value: '(04) 1234 5678', reason: 'brackets' },
  { value: '0212345678', reason: 'landline 02' },
  { value: '0312345678', reason: 'landline 03' },
  { value: '0712345678', reason: 'landline 07' },
  { value: '0812345678', reason: 'landline 08' },
  { value: '+61212345678', reason: 'landline +612' },
  { value: '61312345678', reason: 'landline 613' },
  { value: '+64412345678', reason: 'New Zealand country code' },
  { value: '0061412345678', reason: 'international 0061 prefix' },
  { value: '412345678', reason: 'no trunk 0' },
  { value: '041234567', reason: '9 digits' },
  { value: '04123456789', reason: '11 digits' },
  { value: '04123456ab', reason: 'letters' },
  { value: ' 0412345678', reason: 'leading space' },
  { value: '0412345678 ', reason: 'trailing space' },
  { value: '', reason: 'empty string' },
];

describe('normaliseAustralianMobile', () => {
  it.each(accepted)('turns "$value" into $normalised ($reason)', ({ value, normalised }) => {
    expect(normaliseAustralianMobile(value)).toBe(normalised);
  });

  it.each(rejected)('returns null for "$value" ($reason)', ({ value }) => {
    expect(normaliseAustralianMobile(value)).toBeNull();
  });
});

describe('isValidAustralianMobile', () => {
  it.each(accepted)('accepts "$value" ($reason)', ({ value }) => {
    expect(isValidAustralianMobile(value)).toBe(true);
  });

  it.each(rejected)('rejects "$value" ($reason)', ({ value }) => {
    expect(isValidAustralianMobile(value)).toBe(false);
  });
});
