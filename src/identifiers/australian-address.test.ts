import { describe, expect, it } from 'vitest';
import { isAustralianPostcode, readAustralianState } from './australian-address.ts';
import { normaliseAustralianPhoneNumber } from './australian-phone.ts';

describe('Australian address parts', () => {
  it.each([
    ['NSW', 'NSW'], [' vic ', 'VIC'], ['Qld', 'QLD'], ['act', 'ACT'], ['NT', 'NT'],
    ['N.S.W.', undefined], ['Victoria', undefined], ['NZ', undefined], ['', undefined],
  ])('reads the state %j as %j', (text, state) => {
    expect(readAustralianState(text)).toBe(state);
  });

  it.each([['2000', true], ['0800', true], ['200', false], ['20000', false], ['2OOO', false], [' 2000', false]])('postcode %j is valid: %s', (text, valid) => {
    expect(isAustralianPostcode(text)).toBe(valid);
  });
});

describe('Australian phone numbers', () => {
  it.each([
    ['(02) 9123 4567', '0291234567'],
    ['03-9123-4567', '0391234567'],
    ['+61 7 3123 4567', '0731234567'],
    ['0412 345 678', '0412345678'],
    ['1300 123 456', '1300123456'],
    ['1800 123 456', '1800123456'],
    ['13 12 34', '131234'],
    ['02 9123 456', null],
    ['0612345678', null],
    ['1900 123 456', null],
    ['phone me', null],
  ])('%j reads as %j', (text, digits) => {
    expect(normaliseAustralianPhoneNumber(text)).toBe(digits);
  });
});
