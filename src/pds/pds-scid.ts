// The Script Control Identifier (SCID) of a prescription: 18 characters from 0-9 and A-Z. The
// PDS assigns it (DESIGN decision 25); erx's generator serves the sandbox PDS alone. Before
// that, erx made its own SCIDs: 17 random characters followed by an ISO/IEC 7064 MOD 37,36
// check character, which isValidScid still recognises on prescriptions written then. The check catches
// every single mistyped character and all but 72 of the 45,360 possible swaps of two
// adjacent characters (scid.test.ts counts them). The vendor's SCIDs follow no check that is
// published (its documented examples fail this one), so a read takes any 18 characters of the
// alphabet (isScidFormat) and answers "not found" for one it does not hold; only the SCIDs
// made here carry the check character.
import { randomInt } from 'node:crypto';

export const SCID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const SCID_LENGTH = 18;

const MODULUS = SCID_ALPHABET.length; // 36; the hybrid system works modulo 36 and 37.
const SCID_PATTERN = /^[0-9A-Z]{18}$/;

/** One step of the MOD 37,36 hybrid system: the state after `value`, and the sum it went through. */
function step(state: number, value: number): { state: number; sum: number } {
  const sum = (state + value) % MODULUS || MODULUS;
  return { state: (sum * 2) % (MODULUS + 1), sum };
}

/** The state after every character of `text` (all in the alphabet), and the last sum. */
function run(text: string): { state: number; sum: number } {
  let current = { state: MODULUS, sum: MODULUS };
  for (const character of text) current = step(current.state, SCID_ALPHABET.indexOf(character));
  return current;
}

/** The check character that makes `payload` (characters of the alphabet) a valid string. */
export function checkCharacterOf(payload: string): string {
  const { state } = run(payload);
  // Valid means the check character's sum is 1 (mod 36): (state + check) ≡ 1.
  return SCID_ALPHABET[(MODULUS + 1 - state) % MODULUS]!;
}

/** Whether `text` is a well-formed SCID: 18 upper-case letters and digits whose check character is right. */
export function isValidScid(text: string): boolean {
  return SCID_PATTERN.test(text) && run(text).sum % MODULUS === 1;
}

/** Whether `text` has the form of any SCID, the vendor's too: 18 upper-case letters and digits (no check). */
export function isScidFormat(text: string): boolean {
  return SCID_PATTERN.test(text);
}

function randomPayload(): string {
  let payload = '';
  for (let index = 0; index < SCID_LENGTH - 1; index++) payload += SCID_ALPHABET[randomInt(MODULUS)];
  return payload;
}

/**
 * A fresh random SCID in the eRx format, as the sandbox PDS assigns it: 18 capitals and digits
 * whose last character is never erx's check character (the real eRx SCIDs of ADHA's published
 * examples fail that check, so a SCID from the PDS never looks like one erx made).
 */
export function newScid(): string {
  const payload = randomPayload();
  const check = SCID_ALPHABET.indexOf(checkCharacterOf(payload));
  return payload + SCID_ALPHABET[(check + 1 + randomInt(MODULUS - 1)) % MODULUS];
}

/** A SCID as erx made them before the PDS assigned them (with its check character): for tests of prescriptions written then. */
export function newCheckedScid(): string {
  const payload = randomPayload();
  return payload + checkCharacterOf(payload);
}
