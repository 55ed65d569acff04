// The parts of an Australian address that have a fixed form: the state or territory (its
// abbreviation, as Australia Post writes it) and the 4-digit postcode. Patients' addresses,
// the HI fixtures and organizations' practice addresses all read them here.

import { AUSTRALIAN_STATES, type AustralianState } from '../platform/db/stored-values.ts';

/** The six states and two mainland territories (stored values, so the tables name them too). */
export { AUSTRALIAN_STATES, type AustralianState };

/** A postcode is four digits (Australia Post). */
export const AUSTRALIAN_POSTCODE_PATTERN = '^[0-9]{4}$';
const POSTCODE = new RegExp(AUSTRALIAN_POSTCODE_PATTERN);

/** The state `text` names (any case, spaces around it ignored), or undefined. */
export function readAustralianState(text: string): AustralianState | undefined {
  const upper = text.trim().toUpperCase();
  return (AUSTRALIAN_STATES as readonly string[]).includes(upper) ? (upper as AustralianState) : undefined;
}

export function isAustralianPostcode(text: string): boolean {
  return POSTCODE.test(text);
}
