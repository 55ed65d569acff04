import { describe, expect, it } from 'vitest';
import { isValidMedicareCardNumber, isValidMedicareIrn } from './medicare.ts';

describe('isValidMedicareCardNumber', () => {
  it.each([
    { value: '2950141861', origin: 'ADHA test patient Wood, Jessica (sum 156, check 6)' },
    { value: '2950190661', origin: 'ADHA Java test Schmidt, Helga' },
    { value: '3278851195', origin: 'AU Base example 32788511952 without its IRN' },
    { value: '6140523093', origin: 'HealthIdentifiers test' },
    { value: '6950507391', origin: 'medipass test' },
    { value: '2123456701', origin: 'NEHTA stem 21234567 (sum 170, check 0), issue 1' },
  ])('accepts $value ($origin)', ({ value }) => {
    expect(isValidMedicareCardNumber(value)).toBe(true);
  });

  it.each([
    { value: '2950141871', reason: 'check digit 7, expected 6' },
    { value: '6950507381', reason: 'check digit 8, expected 9' },
    { value: '2273766560', reason: 'issue number 0' },
    { value: '1950141861', reason: 'first digit 1' },
    { value: '1950141851', reason: 'first digit 1 with a matching check digit' },
    { value: '7950141811', reason: 'first digit 7 with a matching check digit' },
    { value: '8921319706', reason: 'ADHA reference-platform placeholder, first digit 8' },
    { value: '1234567892', reason: 'AU Base illustrative example' },
    { value: '295014186', reason: '9 digits' },
    { value: '29501418611', reason: '11 digits: card number with IRN appended' },
    { value: '32788511952', reason: '11 digits: AU Base card number with IRN appended' },
    { value: '29501418610', reason: '11 digits: card number with IRN 0 appended' },
    { value: '295014186X', reason: 'letter as issue number' },
    { value: '2950 14186 1', reason: 'grouped with spaces as printed on the card' },
    { value: ' 2950141861', reason: 'leading space' },
    { value: '2950141861 ', reason: 'trailing space' },
    { value: '', reason: 'empty string' },
  ])('rejects "$value" ($reason)', ({ value }) => {
    expect(isValidMedicareCardNumber(value)).toBe(false);
  });
});

describe('isValidMedicareIrn', () => {
  it.each(['1', '2', '5', '9'])('accepts IRN %s', (value) => {
    expect(isValidMedicareIrn(value)).toBe(true);
  });

  it.each([
    { value: '0', reason: 'IRN 0' },
    { value: '10', reason: 'two digits' },
    { value: '01', reason: 'zero-padded' },
    { value: 'A', reason: 'letter' },
    { value: ' 1', reason: 'leading space' },
    { value: '1 ', reason: 'trailing space' },
    { value: '', reason: 'empty string' },
  ])('rejects "$value" ($reason)', ({ value }) => {
    expect(isValidMedicareIrn(value)).toBe(false);
  });
});
