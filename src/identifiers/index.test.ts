import { describe, expect, it } from 'vitest';
import * as identifiers from './index.ts';

describe('identifiers index', () => {
  it.each([
    'isValidIhi',
    'isValidHpii',
    'isValidHpio',
    'isValidMedicareCardNumber',
    'isValidMedicareIrn',
    'isValidDvaFileNumber',
    'normaliseAustralianMobile',
    'isValidAustralianMobile',
    'isValidEmail',
    'normaliseEmail',
    'isCalendarDate',
    'isFutureDate',
    'readAustralianState',
    'isAustralianPostcode',
    'normaliseAustralianPhoneNumber',
  ])('re-exports %s as a function', (name) => {
    expect(typeof (identifiers as Record<string, unknown>)[name]).toBe('function');
  });
});
