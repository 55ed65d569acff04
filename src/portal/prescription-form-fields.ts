// The prescription's details beyond the medicine and its counts, as the form shows them: the
// PBS authority, the poisons schedule, the notes, and the vendor's flags (each a checkbox that
// sets the flag when ticked). Each label is the field's accessible name, which partners'
// tests and screen readers rely on; each hint says what the field takes.
import type { FieldError } from '../platform/http/body-validation.ts';
import { TEXT_LIMITS } from '../prescriptions/index.ts';

/** The vendor's flags, in the order the form shows them; a ticked box sends the flag as true. */
export const CHECKBOX_FIELDS = [
  'private_prescription',
  'brand_substitution_not_allowed',
  'regulation_24',
  'emergency_supply',
  'unusual_dose_flag',
  'unusual_qty_flag',
  'my_sl_consent',
  'unlisted_item_repat_authority',
] as const;
export type CheckboxField = (typeof CHECKBOX_FIELDS)[number];

/** Text fields sent under their own name when not empty. */
export const DETAIL_TEXT_FIELDS = [
  'pbsdva_authority_number',
  'phone_approval_authority_number',
  'reason_for_prescribing',
  'controlled_substance_reference',
  'annotations',
] as const;
export type DetailTextField = (typeof DETAIL_TEXT_FIELDS)[number];

export type DetailField = CheckboxField | DetailTextField | 'schedule_number';
export const DETAIL_FIELDS: readonly DetailField[] = [...DETAIL_TEXT_FIELDS, 'schedule_number', ...CHECKBOX_FIELDS];

/** The longest value of each text field (the prescribe body's limits; authority numbers are 20). */
export const DETAIL_TEXT_LIMITS: Readonly<Record<DetailTextField, number>> = {
  pbsdva_authority_number: 20,
  phone_approval_authority_number: 20,
  reason_for_prescribing: TEXT_LIMITS.reason_for_prescribing,
  controlled_substance_reference: TEXT_LIMITS.controlled_substance_reference,
  annotations: TEXT_LIMITS.annotations,
};

export const DETAIL_LABELS: Readonly<Record<DetailField, string>> = {
  private_prescription: 'Private prescription (not PBS)',
  pbsdva_authority_number: 'Authority approval number or streamlined code',
  phone_approval_authority_number: 'Telephone approval number',
  schedule_number: 'Poisons schedule',
  brand_substitution_not_allowed: 'Brand substitution not allowed',
  regulation_24: 'Regulation 24: supply the original and all repeats at once',
  emergency_supply: 'Emergency supply',
  unusual_dose_flag: 'Unusual dose (confirmed as intended)',
  unusual_qty_flag: 'Unusual quantity (confirmed as intended)',
  my_sl_consent: 'Patient consents to adding this to their Active Script List',
  unlisted_item_repat_authority: 'Unlisted item: Repatriation (RPBS) authority',
  reason_for_prescribing: 'Reason for prescribing',
  controlled_substance_reference: 'Controlled substance reference',
  annotations: 'Annotations',
};

export const DETAIL_HINTS: Readonly<Partial<Record<DetailField, string>>> = {
  pbsdva_authority_number: "An authority-required PBS item needs its approval number; a streamlined item one of its streamlined codes. Letters and digits, up to 20.",
  phone_approval_authority_number: 'When Services Australia approved the authority by telephone. Letters and digits, up to 20.',
  schedule_number: "Leave as it is to keep the medicine's own (a custom drug always keeps its own).",
  reason_for_prescribing: `Up to ${TEXT_LIMITS.reason_for_prescribing} characters; may be left empty.`,
  controlled_substance_reference: `A controlled (S8) medicine's permit or reference, up to ${TEXT_LIMITS.controlled_substance_reference} characters.`,
  annotations: `Notes for the pharmacist, up to ${TEXT_LIMITS.annotations} characters.`,
};

/** The Poisons Standard schedules a prescription may name. */
export const SCHEDULE_CHOICES = ['S2', 'S3', 'S4', 'S8'] as const;

/** The value a ticked checkbox posts. */
export const TICKED = 'yes';

const AUTHORITY_NUMBER = /^[A-Za-z0-9]{1,20}$/;

/** The body fields the details stand for (ticked flags as true, text not empty), and an authority number of the wrong form in words. */
export function detailFieldsOf(values: Readonly<Record<DetailField, string>>): { fields: Record<string, unknown>; issues: FieldError[] } {
  const fields: Record<string, unknown> = {};
  const issues: FieldError[] = [];
  for (const field of CHECKBOX_FIELDS) if (values[field] === TICKED) fields[field] = true;
  for (const field of DETAIL_TEXT_FIELDS) {
    if (values[field] === '') continue;
    const isAuthority = field === 'pbsdva_authority_number' || field === 'phone_approval_authority_number';
    if (isAuthority && !AUTHORITY_NUMBER.test(values[field])) issues.push({ field, message: 'must be letters and digits only, up to 20 (no spaces or dashes)', code: 'VALIDATION_ERROR' });
    else fields[field] = values[field];
  }
  return { fields, issues };
}
