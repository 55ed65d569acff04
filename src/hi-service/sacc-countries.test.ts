import { describe, expect, it } from 'vitest';
import { COUNTRIES_WITHOUT_SACC_CODE, SACC_COUNTRY_CODES, describeMissingSaccCode, saccCodeOf } from './sacc-countries.ts';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
const alpha2Codes = Object.keys(SACC_COUNTRY_CODES).filter((code) => /^[A-Z]{2}$/.test(code));

describe('SACC country codes', () => {
  // Codes checked against the ABS publications (SACC coding index, SACC 2016 main structure).
  it.each([
    ['NZ', '1201'],
    ['US', '8104'],
    ['GB-ENG', '2102'],
    ['GB-NIR', '2104'],
    ['GB-SCT', '2105'],
    ['GB-WLS', '2106'],
    ['CN', '6101'],
    ['HK', '6102'],
    ['MO', '6103'],
    ['IN', '7103'],
    ['DZ', '4101'],
    ['EG', '4102'],
    ['EH', '4107'],
    ['AU', '1101'],
    ['FJ', '1502'],
    ['SG', '5205'],
  ])('maps %s to %s', (country, sacc) => {
    expect(saccCodeOf(country)).toBe(sacc);
  });

  it('covers each of the 249 ISO 3166-1 alpha-2 codes once: a SACC code or a reason why none', () => {
    const covered = [...alpha2Codes, ...Object.keys(COUNTRIES_WITHOUT_SACC_CODE)];
    expect(new Set(covered).size).toBe(covered.length);
    expect(covered).toHaveLength(249);
    for (const code of covered) expect(regionNames.of(code), code).not.toBe(code);
  });

  it('holds only 4-digit codes of a SACC major group (1 to 9), never a group code ending in 00', () => {
    for (const [country, sacc] of Object.entries(SACC_COUNTRY_CODES)) {
      expect(sacc, country).toMatch(/^[1-9]\d\d[1-9]$|^[1-9]\d[1-9]0$/);
    }
  });

  it('accepts any case and surrounding spaces', () => {
    expect(saccCodeOf(' nz ')).toBe('1201');
    expect(saccCodeOf('gb-sct')).toBe('2105');
  });

  it('has no code for the United Kingdom as a whole, and says which to send', () => {
    expect(saccCodeOf('GB')).toBeUndefined();
    expect(describeMissingSaccCode('gb')).toContain('GB-ENG, GB-SCT, GB-WLS or GB-NIR');
  });

  it('has no code for a country name or an unknown value, and says what is expected', () => {
    for (const value of ['New Zealand', 'NZL', 'ZZ', 'toString', '']) expect(saccCodeOf(value)).toBeUndefined();
    expect(describeMissingSaccCode('New Zealand')).toContain('ISO 3166-1 alpha-2');
  });
});
