// Calendar dates as YYYY-MM-DD strings, and "today" as the Australian (Sydney) calendar sees it.

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const SYDNEY_DATE_FORMAT = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Australia/Sydney',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const THIRTY_DAY_MONTHS: ReadonlySet<number> = new Set([4, 6, 9, 11]);

function countDaysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return THIRTY_DAY_MONTHS.has(month) ? 30 : 31;
}

export function isCalendarDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  return (
    year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= countDaysInMonth(year, month)
  );
}

// Formatting in a time zone is slow next to everything else a request does, and the Sydney
// date can only change on a whole UTC minute (its offsets are whole hours or half hours):
// remember the answer for the minute it was computed in.
let cachedMinute = Number.NaN;
let cachedToday = '';

export function todayInAustralia(now: Date): string {
  const minute = Math.floor(now.getTime() / 60_000);
  if (minute === cachedMinute) return cachedToday;
  const parts = SYDNEY_DATE_FORMAT.formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((candidate) => candidate.type === type)?.value ?? '';
  cachedToday = `${part('year')}-${part('month')}-${part('day')}`;
  cachedMinute = minute;
  return cachedToday;
}

// A string that is not a calendar date is never "in the future".
export function isFutureDate(value: string, now: Date): boolean {
  return isCalendarDate(value) && value > todayInAustralia(now);
}
