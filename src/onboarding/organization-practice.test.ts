import { describe, expect, it } from 'vitest';
import { describeMissingPractice, missingPracticeParts, readPracticeInput } from './organization-practice.ts';

const good = { street: ' 12  Smith St ', suburb: 'Fitzroy', state: 'vic', postcode: '3065', phone: '+61 3 9123 4567' };

describe("an organization's practice", () => {
  it('is read clean: single spaces, the state as its abbreviation, the phone as digits', () => {
    expect(readPracticeInput(good)).toEqual({ street: '12 Smith St', suburb: 'Fitzroy', state: 'VIC', postcode: '3065', phone: '0391234567' });
  });

  it.each([
    [{ state: 'Victoria' }, /the state must be one of NSW, VIC/],
    [{ state: 'NZ' }, /the state must be one of/],
    [{ postcode: '306' }, /the postcode must be 4 digits/],
    [{ postcode: '30650' }, /the postcode must be 4 digits/],
    [{ phone: '12345' }, /the phone number must be an Australian number/],
    [{ street: '   ' }, /the street address must be 1 to 100 characters/],
    [{ street: 'x'.repeat(101) }, /the street address must be 1 to 100 characters/],
    [{ suburb: 'x'.repeat(51) }, /the suburb must be 1 to 50 characters/],
    [{ suburb: 'Fitz\u0007roy' }, /the suburb must be 1 to 50 characters/],
  ])('refuses %j', (change, message) => {
    expect(() => readPracticeInput({ ...good, ...change })).toThrow(message);
  });

  it('names what is missing, in the order an address is written', () => {
    const none = { organizationId: 'o', name: 'Clinic', hpio: null, street: null, suburb: null, state: null, postcode: null, phone: null };
    expect(missingPracticeParts(none)).toEqual(['street address', 'suburb', 'state', 'postcode', 'phone number']);
    expect(missingPracticeParts({ ...none, street: '1 A St', suburb: 'B', state: 'NSW', postcode: '2000' })).toEqual(['phone number']);
    expect(describeMissingPractice(['phone number'])).toMatch(/\(missing: phone number\)\..*erx org set-practice/);
  });
});
