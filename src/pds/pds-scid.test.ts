import { describe, expect, it } from 'vitest';
import { checkCharacterOf, isScidFormat, isValidScid, newCheckedScid, newScid, SCID_ALPHABET } from './pds-scid.ts';

describe('SCID check character (ISO/IEC 7064 MOD 37,36)', () => {
  it.each([
    // Published test vectors of the MOD 37,36 system; the first is 17 characters plus its check, like a SCID.
    { payload: 'A12425GABC1234002', check: 'M' },
    { payload: 'B159D8FA01240000', check: 'K' },
    { payload: '188166C734200000', check: '3' },
  ])('gives $check for $payload', ({ payload, check }) => {
    expect(checkCharacterOf(payload)).toBe(check);
  });

  it.each([
    { scid: 'A12425GABC1234002M', valid: true, reason: 'a published vector of 18 characters' },
    { scid: 'A12425GABC1234002N', valid: false, reason: 'the check character mistyped' },
    { scid: 'A12425GABC1234O02M', valid: false, reason: 'a letter O typed for the digit 0' },
    { scid: '1A2425GABC1234002M', valid: false, reason: 'the first two characters swapped' },
    { scid: 'a12425gabc1234002m', valid: false, reason: 'lower case (callers upper-case first)' },
    { scid: 'A12425GABC1234002', valid: false, reason: '17 characters' },
    { scid: 'A12425GABC1234002MM', valid: false, reason: '19 characters' },
    { scid: 'A12425GABC-234002M', valid: false, reason: 'a character outside the alphabet' },
    { scid: '', valid: false, reason: 'empty' },
  ])('$scid is valid: $valid ($reason)', ({ scid, valid }) => {
    expect(isValidScid(scid)).toBe(valid);
  });

  it('catches every single mistyped character of a SCID', () => {
    const scid = newCheckedScid();
    for (let position = 0; position < scid.length; position++) {
      for (const replacement of SCID_ALPHABET) {
        if (replacement === scid[position]) continue;
        const typo = scid.slice(0, position) + replacement + scid.slice(position + 1);
        expect(isValidScid(typo), typo).toBe(false);
      }
    }
  });

  it('catches all but 72 of the 45,360 swaps of two adjacent different characters (0.16 %)', () => {
    // Whether a swap is caught depends only on the state before the pair and the two values.
    // The state after one character takes each of its 36 possible values for some character,
    // so a one-character prefix reaches every state; then every ordered pair of characters.
    let swaps = 0;
    let missed = 0;
    for (const prefix of SCID_ALPHABET) {
      for (const a of SCID_ALPHABET) {
        for (const b of SCID_ALPHABET) {
          if (a === b) continue;
          swaps += 1;
          const payload = `${prefix}${a}${b}`.padEnd(17, '0');
          const swapped = `${prefix}${b}${a}`.padEnd(17, '0');
          if (isValidScid(swapped + checkCharacterOf(payload))) missed += 1;
        }
      }
    }
    expect(swaps).toBe(45_360);
    expect(missed).toBe(72);
  });

  it('made erx SCIDs of 18 upper-case letters and digits that pass their own check, all different', () => {
    const made = Array.from({ length: 1_000 }, newCheckedScid);
    for (const scid of made) {
      expect(scid).toMatch(/^[0-9A-Z]{18}$/);
      expect(isValidScid(scid)).toBe(true);
    }
    expect(new Set(made).size).toBe(made.length);
  });

  it('makes the sandbox PDS SCIDs in the eRx format: 18 upper-case letters and digits, never with erx check character, all different', () => {
    const made = Array.from({ length: 2_000 }, newScid);
    for (const scid of made) {
      expect(scid).toMatch(/^[0-9A-Z]{18}$/);
      expect(isValidScid(scid)).toBe(false);
    }
    expect(new Set(made).size).toBe(made.length);
  });
});


describe('the form of any SCID (reads look up the vendor\'s too)', () => {
  it.each([
    { scid: '2F3WFX8J4WQH8T72X9', format: true, reason: "a vendor's documented example (its check character is not erx's)" },
    { scid: '2F3WFX8B8K66686MVA', format: true, reason: "the vendor's other example" },
    { scid: 'A12425GABC1234002N', format: true, reason: "an erx SCID mistyped: looked up, and not found" },
    { scid: 'A12425GABC1234002', format: false, reason: '17 characters' },
    { scid: 'A12425GABC1234002MM', format: false, reason: '19 characters' },
    { scid: 'A12425GABC-234002M', format: false, reason: 'a character outside the alphabet' },
    { scid: 'a12425gabc1234002m', format: false, reason: 'lower case (callers upper-case first)' },
  ])('$scid has the form: $format ($reason)', ({ scid, format }) => {
    expect(isScidFormat(scid)).toBe(format);
  });

  it("finds that the vendor's examples fail erx's check, so a check on reads would refuse them", () => {
    expect(isValidScid('2F3WFX8J4WQH8T72X9') || isValidScid('2F3WFX8B8K66686MVA')).toBe(false);
  });
});
