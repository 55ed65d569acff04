import { describe, expect, it } from 'vitest';
import { isCalendarDate, isFutureDate, todayInAustralia } from './calendar-date.ts';

describe('isCalendarDate', () => {
  it.each([
    { value: '2024-02-29', reason: 'leap day in a leap year' },
    { value: '2000-02-29', reason: 'leap day in a year divisible by 400' },
    { value: '2023-02-28', reason: 'last day of February' },
    { value: '2023-04-30', reason: 'last day of a 30-day month' },
    { value: '2023-12-31', reason: 'last day of the year' },
    { value: '0001-01-01', reason: 'year 1' },
  ])('accepts $value ($reason)', ({ value }) => {
    expect(isCalendarDate(value)).toBe(true);
  });

  it.each([
    { value: '2023-02-29', reason: 'leap day in a common year' },
    { value: '1900-02-29', reason: 'leap day in a century year not divisible by 400' },
    { value: '2023-04-31', reason: '31st of a 30-day month' },
    { value: '2023-01-32', reason: 'day 32' },
    { value: '2023-01-00', reason: 'day 0' },
    { value: '2023-00-10', reason: 'month 0' },
    { value: '2023-13-01', reason: 'month 13' },
    { value: '0000-01-01', reason: 'year 0000' },
    { value: '2023-1-01', reason: 'unpadded month' },
    { value: '20230101', reason: 'no separators' },
    { value: '2023/01/01', reason: 'slashes' },
    { value: '01-01-2023', reason: 'day first' },
    { value: '2023-01-01T00:00:00Z', reason: 'date-time' },
    { value: ' 2023-01-01', reason: 'leading space' },
    { value: '2023-01-01 ', reason: 'trailing space' },
    { value: '', reason: 'empty string' },
  ])('rejects "$value" ($reason)', ({ value }) => {
    expect(isCalendarDate(value)).toBe(false);
  });
});

describe('todayInAustralia', () => {
  it.each([
    { instant: '2026-11-22T12:59:59Z', today: '2026-11-22', reason: '23:59:59 AEDT (UTC+11)' },
    { instant: '2026-11-22T13:00:00Z', today: '2026-11-23', reason: 'midnight AEDT' },
    { instant: '2026-11-22T13:30:00Z', today: '2026-11-23', reason: '00:30 AEDT' },
    { instant: '2026-06-30T13:59:59Z', today: '2026-06-30', reason: '23:59:59 AEST (UTC+10)' },
    { instant: '2026-06-30T14:00:00Z', today: '2026-07-01', reason: 'midnight AEST' },
    { instant: '2026-12-31T13:00:00Z', today: '2027-01-01', reason: 'new year in Sydney first' },
  ])('is $today at $instant ($reason)', ({ instant, today }) => {
    expect(todayInAustralia(new Date(instant))).toBe(today);
  });
});

describe('isFutureDate', () => {
  // 00:30 on 23 November in Sydney, still 22 November in UTC.
  const now = new Date('2026-11-22T13:30:00Z');

  it.each([
    { value: '2026-11-22', expected: false, reason: 'yesterday in Sydney (today in UTC)' },
    { value: '2026-11-23', expected: false, reason: 'today in Sydney (tomorrow in UTC)' },
    { value: '2026-11-24', expected: true, reason: 'tomorrow in Sydney' },
    { value: '2027-01-01', expected: true, reason: 'next year' },
    { value: '1980-01-01', expected: false, reason: 'long past' },
    { value: '2026-11-31', expected: false, reason: 'not a calendar date' },
    { value: 'later', expected: false, reason: 'not a date at all' },
  ])('returns $expected for $value ($reason)', ({ value, expected }) => {
    expect(isFutureDate(value, now)).toBe(expected);
  });
});

describe('todayInAustralia across Sydney midnight in consecutive calls', () => {
  it('changes date on the first minute after midnight, even when asked a second before', () => {
    // 2026-11-22T12:59:59Z is 23:59:59 on the 22nd in Sydney (AEDT, UTC+11).
    expect(todayInAustralia(new Date('2026-11-22T12:59:59Z'))).toBe('2026-11-22');
    expect(todayInAustralia(new Date('2026-11-22T13:00:00Z'))).toBe('2026-11-23');
    expect(todayInAustralia(new Date('2026-11-22T12:59:30Z'))).toBe('2026-11-22');
  });
});
