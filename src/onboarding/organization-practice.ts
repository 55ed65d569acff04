// An organization's practice: the address and phone its prescriptions print beside the
// prescriber's name (PBS regulations s40 and the states' poisons rules, which ask for the
// prescriber's address and telephone number: see src/prescriptions/script-content-rules.ts).
// The operator records them (`erx org set-practice`); until all five are there, the
// organization's prescribers cannot prescribe, and the portal says which are missing.
import { auditRecords } from '../audit/index.ts';
import { isAustralianPostcode, normaliseAustralianPhoneNumber, readAustralianState, type AustralianState, AUSTRALIAN_STATES } from '../identifiers/index.ts';
import type { OnboardingContext } from './onboarding-service.ts';
import { OnboardingError } from './onboarding-service.ts';
import { findOrganization, updateOrganizationPractice } from './onboarding-store.ts';

/** The practice's parts, in the order an address is written, each with the words the messages use. */
export const PRACTICE_PARTS = [
  { part: 'street', label: 'street address', maxLength: 100 },
  { part: 'suburb', label: 'suburb', maxLength: 50 },
  { part: 'state', label: 'state', maxLength: 3 },
  { part: 'postcode', label: 'postcode', maxLength: 4 },
  { part: 'phone', label: 'phone number', maxLength: 10 },
] as const;
export type PracticePart = (typeof PRACTICE_PARTS)[number]['part'];

/** An organization as its prescriptions state it: the practice parts null until recorded. */
export interface OrganizationPractice {
  organizationId: string;
  name: string;
  hpio: string | null;
  street: string | null;
  suburb: string | null;
  state: AustralianState | null;
  postcode: string | null;
  phone: string | null;
}

/** The labels of the parts not yet recorded (none: a prescription can be written). */
export function missingPracticeParts(practice: OrganizationPractice): string[] {
  return PRACTICE_PARTS.filter(({ part }) => practice[part] === null).map(({ label }) => label);
}

/** Why no prescription can be written yet, naming what is missing and who records it. */
export function describeMissingPractice(missing: readonly string[]): string {
  return `Your organization's practice address and phone are not complete (missing: ${missing.join(', ')}). A prescription states them, so none can be written until the platform operator records them (erx org set-practice).`;
}

export async function readOrganizationPractice(ctx: Pick<OnboardingContext, 'db'>, organizationId: string): Promise<OrganizationPractice | undefined> {
  const row = await findOrganization(ctx.db, organizationId);
  if (!row) return undefined;
  const { id, name, hpio, practice_street: street, practice_suburb: suburb, practice_state: state, practice_postcode: postcode, practice_phone: phone } = row;
  return { organizationId: id, name, hpio, street, suburb, state, postcode, phone };
}

export interface PracticeInput {
  street: string;
  suburb: string;
  state: string;
  postcode: string;
  phone: string;
}

/** Printable text of at most `max` characters: no control characters, single spaces. */
function readText(value: string, label: string, max: number): string {
  const text = value.trim().replace(/\s+/g, ' ');
  if (text === '' || [...text].length > max || /\p{Cc}/u.test(text)) throw new OnboardingError(`the ${label} must be 1 to ${max} characters`);
  return text;
}

/** The practice as it will be stored, or the first thing wrong with it (one line for the CLI). */
export function readPracticeInput(input: PracticeInput): { street: string; suburb: string; state: AustralianState; postcode: string; phone: string } {
  const state = readAustralianState(input.state);
  if (!state) throw new OnboardingError(`the state must be one of ${AUSTRALIAN_STATES.join(', ')}, got "${input.state.slice(0, 20)}"`);
  if (!isAustralianPostcode(input.postcode.trim())) throw new OnboardingError(`the postcode must be 4 digits, got "${input.postcode.slice(0, 20)}"`);
  const phone = normaliseAustralianPhoneNumber(input.phone);
  if (!phone) throw new OnboardingError(`the phone number must be an Australian number (e.g. 02 9123 4567, 1300 123 456), got "${input.phone.slice(0, 30)}"`);
  return { street: readText(input.street, 'street address', 100), suburb: readText(input.suburb, 'suburb', 50), state, postcode: input.postcode.trim(), phone };
}

/** Records (or replaces) the organization's practice address and phone, with its audit entry. */
export async function setOrganizationPractice(ctx: OnboardingContext, organizationId: string, input: PracticeInput): Promise<OrganizationPractice> {
  const id = organizationId.toLowerCase();
  const practice = readPracticeInput(input);
  const found = await ctx.unitOfWork.run(async ({ trx, record }) => {
    if (!(await updateOrganizationPractice(trx, id, practice))) return false;
    record(auditRecords, { action: 'admin.organization_practice', organizationId: id });
    return true;
  });
  if (!found) throw new OnboardingError(`organization ${organizationId} not found`);
  return (await readOrganizationPractice(ctx, id))!;
}
