// The limits of what a prescription may say, as data: the request schemas, the checks that
// run on a custom drug's copied values, and the limit tests are all derived from these.

/** Whole-number fields: sent as a JSON number or a string of digits, stored and answered as strings. */
export const COUNT_LIMITS = {
  quantity: { min: 1, max: 999, description: 'How many units are supplied, 1 to 999. Absent with a custom_drug_id: the drug\'s quantity.' },
  repeats: { min: 0, max: 99, description: 'Repeats authorised, 0 to 99 (default 0); with a custom_drug_id at most the drug\'s max_repeats.' },
  repeat_interval_days: { min: 1, max: 365, description: 'Least number of days between supplies, 1 to 365.' },
} as const;
export type CountField = keyof typeof COUNT_LIMITS;

/** Longest value of each text field, in characters (the custom drug limits where the fields meet). */
export const TEXT_LIMITS = {
  item_name: 280,
  item_strength: 100,
  item_form: 50,
  route_administration: 50,
  reason_for_prescribing: 250,
  patient_instructions: 250,
  doctor_instructions: 50,
  controlled_substance_reference: 50,
  annotations: 250,
} as const;

/** Fields with a fixed form. */
export const TEXT_PATTERNS = {
  // A PBS item code: four or five digits and a check letter, e.g. 8502L or 10074L.
  pbs_code: { pattern: '^[0-9]{4,5}[A-Z]$', maxLength: 6, description: 'PBS item code, e.g. `8502L`.' },
  schedule_number: { pattern: '^S[2-9]$', maxLength: 2, description: 'Poisons Standard schedule, `S2` to `S9`.' },
  // Services Australia's authority approval numbers and the Schedule's streamlined codes are letters and digits.
  pbsdva_authority_number: {
    pattern: '^[A-Za-z0-9]{1,20}$',
    maxLength: 20,
    description: "The PBS/RPBS authority: the approval number of an authority-required item, or one of a streamlined item's codes.",
  },
  phone_approval_authority_number: { pattern: '^[A-Za-z0-9]{1,20}$', maxLength: 20, description: 'The approval number Services Australia gave by telephone.' },
} as const;

/** Free-text fields of the prescription the prescriber writes, beside the medicine. */
export const NOTE_FIELDS = ['reason_for_prescribing', 'patient_instructions', 'controlled_substance_reference', 'annotations'] as const;
export type NoteField = (typeof NOTE_FIELDS)[number];

/** The authority fields (TEXT_PATTERNS), stored and answered as sent (upper-cased). */
export const AUTHORITY_FIELDS = ['pbsdva_authority_number', 'phone_approval_authority_number'] as const;
export type AuthorityField = (typeof AUTHORITY_FIELDS)[number];

/** The fields that write the medicine out in full; a custom_drug_id replaces all of them. */
export const ITEM_FIELDS = ['item_name', 'item_strength', 'item_form', 'route_administration', 'pbs_code', 'schedule_number'] as const;
export type ItemField = (typeof ITEM_FIELDS)[number];

/** The vendor's boolean flags a prescription may set; unset ones are absent from every answer. */
export const BOOLEAN_FLAGS = [
  'private_prescription',
  'emergency_supply',
  'brand_substitution_not_allowed',
  'regulation_24',
  'unusual_dose_flag',
  'unusual_qty_flag',
  'my_sl_consent',
  'unlisted_item_repat_authority',
] as const;
export type BooleanFlag = (typeof BOOLEAN_FLAGS)[number];

/** reserved_1..3 are truncated to 30 characters for the event; longer input than this is refused. */
export const RESERVED_INPUT_MAX_LENGTH = 1000;

/** A whole number in a count field's range, from a JSON number or a string of digits; undefined otherwise. */
export function readCount(field: CountField, value: unknown): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  const { min, max } = COUNT_LIMITS[field];
  return Number.isInteger(number) && number >= min && number <= max ? number : undefined;
}

export function describeCountLimit(field: CountField): string {
  const { min, max } = COUNT_LIMITS[field];
  return `must be a whole number from ${min} to ${max}`;
}
