import { describe, expect, it } from 'vitest';
import { isValidHpii, isValidHpio, isValidIhi, passesLuhn } from './healthcare-identifiers.ts';

describe('passesLuhn', () => {
  it.each([
    { digits: '8003601240022579', expected: true, reason: 'worked example, sum 50' },
    { digits: '79927398713', expected: true, reason: 'classic ISO 7812 example, odd length' },
    { digits: '8003601240022578', expected: false, reason: 'last digit altered' },
    { digits: '8003601240025279', expected: false, reason: 'adjacent digits swapped' },
    { digits: '1240022579', expected: false, reason: 'IHI tail alone, prefix dropped' },
    { digits: '', expected: false, reason: 'empty string' },
    { digits: '80036012400225a9', expected: false, reason: 'contains a letter' },
  ])('returns $expected for "$digits" ($reason)', ({ digits, expected }) => {
    expect(passesLuhn(digits)).toBe(expected);
  });
});

// Wrong-length, wrong-character and whitespace cases every 16-digit validator must reject.
const malformed = [
  { value: '', reason: 'empty string' },
  { value: '800360124002254', reason: '15 digits, Luhn-valid' },
  { value: '80036012400225798', reason: '17 digits, Luhn-valid' },
  { value: '800360124002257X', reason: 'letter in place of the check digit' },
  { value: ' 8003601240022579', reason: 'leading space' },
  { value: '8003601240022579 ', reason: 'trailing space' },
  { value: '8003 6012 4002 2579', reason: 'grouped with spaces' },
  {
    value: 'http://ns.electronichealth.net.au/id/hi/ihi/1.0/8003601240022579',
    reason: 'qualified URI (callers send bare numbers)',
  },
];

describe('isValidIhi', () => {
  it.each([
    { value: '8003601240022579', origin: 'ADHA test patient Wood, Jessica' },
    { value: '8003608666670997', origin: 'ADHA Java test Alston, Grant' },
    { value: '8003604567897656', origin: 'ADHA Java DVA test Mccane, Amy' },
    { value: '8003608833357361', origin: 'AU Base example patient' },
    { value: '8003608166690503', origin: 'HL7 AU FHIR WG example' },
  ])('accepts $value ($origin)', ({ value }) => {
    expect(isValidIhi(value)).toBe(true);
  });

  it.each([
    { value: '8003601240022578', reason: 'check digit altered' },
    { value: '8003601240025279', reason: 'two digits swapped' },
    { value: '8003609876543210', reason: 'ADHA reference-platform placeholder fails Luhn' },
    { value: '8003604649852310', reason: 'bad check value' },
    { value: '800360124002257', reason: '15 digits' },
    { value: '8003619166667284', reason: 'Luhn-valid HPI-I, prefix 800361' },
    { value: '8003591240022572', reason: 'Luhn-valid, prefix 800359' },
    ...malformed,
  ])('rejects "$value" ($reason)', ({ value }) => {
    expect(isValidIhi(value)).toBe(false);
  });
});

describe('isValidHpii', () => {
  it.each([
    { value: '8003619166667284', origin: 'ADHA Java MCA_HPII' },
    { value: '8003610000010401', origin: 'ADHA Java DRP_HPII' },
    { value: '8003610001647326', origin: 'ADHA .NET sample' },
  ])('accepts $value ($origin)', ({ value }) => {
    expect(isValidHpii(value)).toBe(true);
  });

  it.each([
    { value: '8003619166667285', reason: 'check digit altered' },
    { value: '8003624166667003', reason: 'Luhn-valid HPI-O, prefix 800362' },
    { value: '8003601240022579', reason: 'Luhn-valid IHI, prefix 800360' },
    ...malformed,
  ])('rejects "$value" ($reason)', ({ value }) => {
    expect(isValidHpii(value)).toBe(false);
  });
});

describe('isValidHpio', () => {
  it.each([
    { value: '8003624166667003', origin: 'ADHA Java MCA_HPIO' },
    { value: '8003620000030333', origin: 'ADHA Java DRP_HPIO' },
    { value: '8003626566687887', origin: 'ADHA Java NEHTA_HPIO_QUALIFIER_ID' },
  ])('accepts $value ($origin)', ({ value }) => {
    expect(isValidHpio(value)).toBe(true);
  });

  it.each([
    { value: '8003624166667004', reason: 'check digit altered' },
    { value: '8003630833334588', reason: 'Luhn-valid CSP number, prefix 800363' },
    { value: '8003619166667284', reason: 'Luhn-valid HPI-I, prefix 800361' },
    ...malformed,
  ])('rejects "$value" ($reason)', ({ value }) => {
    expect(isValidHpio(value)).toBe(false);
  });
});
