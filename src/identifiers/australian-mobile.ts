// Australian mobile numbers (04 and 05 ranges), domestic or with the 61 country code.
// Only bare digits are accepted: no spaces, hyphens or brackets.

// Trunk 0, or 61 / +61 in place of it, then the 9-digit national number.
const AUSTRALIAN_MOBILE = /^(?:0|\+?61)([45]\d{8})$/;

export function normaliseAustralianMobile(value: string): string | null {
  const nationalNumber = AUSTRALIAN_MOBILE.exec(value)?.[1];
  return nationalNumber === undefined ? null : `0${nationalNumber}`;
}

export function isValidAustralianMobile(value: string): boolean {
  return normaliseAustralianMobile(value) !== null;
}
