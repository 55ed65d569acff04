// Who writes a prescription, as the script states it: the prescriber's HPI-I and prescriber
// number, the organization's name, HPI-O and practice address and phone, and the software's
// conformance id, copied into the prescription when it is written (migration 0041). An
// organization whose practice address or phone is not recorded cannot have prescriptions
// written: every entry point (portal, test helper, draft approval) comes through the create
// path, which refuses with the message the portal's patient page shows beforehand.
import { encryptSecret } from '../platform/secrets.ts';
import { describeMissingPractice, missingPracticeParts, type OrganizationPractice } from '../onboarding/index.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { PrescriberProfile } from '../users/index.ts';
import type { PrescriptionRow } from './prescriptions-store.ts';

/** Where the organization's practice is read (the onboarding feature, which the operator records it through). */
export interface PracticeLookup {
  findPractice(organizationId: string): Promise<OrganizationPractice | undefined>;
}

/** What is missing before the organization's prescriptions can be written (none: nothing), and the message saying so. */
export async function readPracticeGaps(ctx: { practices: PracticeLookup }, organizationId: string): Promise<{ missing: string[]; message: string | undefined }> {
  const practice = await ctx.practices.findPractice(organizationId);
  const missing = practice ? missingPracticeParts(practice) : ['the organization'];
  return { missing, message: missing.length === 0 ? undefined : describeMissingPractice(missing) };
}

/** The organization's practice when complete; 409 naming what is missing otherwise. */
export async function requireCompletePractice(ctx: { practices: PracticeLookup }, organizationId: string): Promise<OrganizationPractice> {
  const practice = await ctx.practices.findPractice(organizationId);
  const missing = practice ? missingPracticeParts(practice) : ['the organization'];
  if (!practice || missing.length > 0) throw new ApiError('CONFLICT', describeMissingPractice(missing));
  return practice;
}

export type AuthorshipColumns = Pick<
  PrescriptionRow,
  | 'conformance_id' | 'prescriber_hpii_encrypted' | 'prescriber_number' | 'organization_hpio' | 'organization_name'
  | 'practice_street' | 'practice_suburb' | 'practice_state' | 'practice_postcode' | 'practice_phone'
>;

/** The columns a new prescription copies in from its writers, as they are now. */
export function authorshipColumnsOf(conformanceId: string, prescriber: PrescriberProfile, practice: OrganizationPractice, secretKey: Buffer): AuthorshipColumns {
  return {
    conformance_id: conformanceId,
    // Sealed as the provider record's is.
    prescriber_hpii_encrypted: prescriber.hpii_number === null ? null : encryptSecret(prescriber.hpii_number, secretKey),
    prescriber_number: prescriber.prescriber_number,
    organization_hpio: practice.hpio,
    organization_name: practice.name,
    practice_street: practice.street,
    practice_suburb: practice.suburb,
    practice_state: practice.state,
    practice_postcode: practice.postcode,
    practice_phone: practice.phone,
  };
}
