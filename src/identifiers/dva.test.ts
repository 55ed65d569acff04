import { describe, expect, it } from 'vitest';
import { isValidDvaFileNumber } from './dva.ts';

describe('isValidDvaFileNumber', () => {
  it.each([
    { value: 'N 908030D', reason: 'blank war code, dependant segment D (ADHA Java test)' },
    { value: 'N 908030C', reason: 'blank war code, dependant segment C (ADHA .NET sample)' },
    { value: 'N 908030', reason: 'blank war code, veteran without segment' },
    { value: 'NX123456', reason: '1-letter war code + 6 digits, veteran' },
    { value: 'QZX12345Z', reason: '2-letter war code + 5 digits, segment Z' },
    { value: 'NABC1234C', reason: '3-letter war code + 4 digits, segment C' },
    { value: 'VX123456', reason: 'state V' },
    { value: 'WX123456', reason: 'state W' },
    { value: 'SX123456', reason: 'state S' },
    { value: 'TX123456A', reason: 'state T with segment' },
    { value: 'n 908030d', reason: 'lower case, upper-cased before checking' },
    { value: 'qzx12345z', reason: 'lower case 2-letter war code' },
  ])('accepts "$value" ($reason)', ({ value }) => {
    expect(isValidDvaFileNumber(value)).toBe(true);
  });

  it.each([
    { value: 'ZX123456', reason: 'Z is not a state code' },
    { value: 'AX123456', reason: 'A is not a state code' },
    { value: 'NZX123456Z', reason: '2-letter war code followed by 6 digits' },
    { value: 'NZX123458', reason: '9th character is a digit, not a segment letter' },
    { value: 'N908030D', reason: 'blank war code dropped' },
    { value: 'N  908030', reason: 'two blanks as war code' },
    { value: 'NABCD123', reason: '4-letter war code' },
    { value: 'N1234567', reason: 'no war code and no blank' },
    { value: 'NX12345', reason: 'file number one digit short' },
    { value: 'NX123456AB', reason: 'two segment letters' },
    { value: 'NX123456-', reason: 'segment is not a letter' },
    { value: ' NX123456', reason: 'leading space' },
    { value: 'NX123456 ', reason: 'trailing space' },
    { value: '', reason: 'empty string' },
  ])('rejects "$value" ($reason)', ({ value }) => {
    expect(isValidDvaFileNumber(value)).toBe(false);
  });
});
