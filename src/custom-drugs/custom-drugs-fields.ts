// The spec's custom drug field table, as data. The create, update and bulk schemas, the stored
// columns, the response and the limit tests are all derived from CUSTOM_DRUG_FIELDS.

export interface CustomDrugFieldRule {
  /** Longest value in characters, as the spec's table gives it (absent: the spec gives none). */
  maxLength?: number;
  /** Required on create; such a field can never be emptied by an update either. */
  requiredOnCreate: boolean;
  /** What a valid value looks like, beyond its length. */
  pattern?: string;
  /** On create a JSON number is accepted as well and stored as its decimal string. */
  numberOnCreate?: boolean;
  description: string;
}

const FIELDS = {
  item_generic_name: { maxLength: 280, requiredOnCreate: true, description: 'Generic (active ingredient) name.' },
  item_trade_name: { maxLength: 280, requiredOnCreate: false, description: 'Trade name.' },
  brand_name: { maxLength: 100, requiredOnCreate: false, description: 'Brand name.' },
  item_strength: { maxLength: 100, requiredOnCreate: true, description: 'Strength, e.g. `500mg`.' },
  item_form: { maxLength: 50, requiredOnCreate: true, description: 'Dose form, e.g. `Capsule`.' },
  route_of_administration: { maxLength: 50, requiredOnCreate: true, description: 'Route, e.g. `Oral`.' },
  // The spec gives quantity no maximum; 9 digits is a guard against absurd values only.
  quantity: {
    requiredOnCreate: true,
    numberOnCreate: true,
    pattern: '^[1-9][0-9]{0,8}$',
    description: 'A positive whole number (at most 9 digits), as a string; on create a number is also accepted.',
  },
  max_repeats: {
    requiredOnCreate: true,
    numberOnCreate: true,
    pattern: '^(0|[1-9][0-9]?)$',
    description: 'Repeats allowed, 0 to 99, as a string; on create a number is also accepted.',
  },
  poison_class: {
    maxLength: 2,
    requiredOnCreate: true,
    pattern: '^S[2-9]$',
    description: 'Poisons Standard schedule, `S2` to `S9` (a bare digit is rejected).',
  },
  custom_product_id: {
    maxLength: 50,
    requiredOnCreate: false,
    description: "The partner's own identifier of the product: never generated, not checked for uniqueness.",
  },
  description: { maxLength: 280, requiredOnCreate: false, description: 'Description.' },
  patient_instructions: { maxLength: 250, requiredOnCreate: false, description: 'Instructions for the patient.' },
  doctor_instructions: { maxLength: 50, requiredOnCreate: false, description: 'Instructions for the prescriber.' },
} satisfies Record<string, CustomDrugFieldRule>;

export type CustomDrugField = keyof typeof FIELDS;

export const CUSTOM_DRUG_FIELDS: Readonly<Record<CustomDrugField, CustomDrugFieldRule>> = FIELDS;

export const CUSTOM_DRUG_FIELD_NAMES = Object.keys(FIELDS) as CustomDrugField[];

export type RequiredOnCreate = { [K in CustomDrugField]: (typeof FIELDS)[K]['requiredOnCreate'] extends true ? K : never }[CustomDrugField];

/** A create body once validated (numbers already turned into strings). */
export type CustomDrugInput = { [K in RequiredOnCreate]: string } & { [K in Exclude<CustomDrugField, RequiredOnCreate>]?: string };

/** An update body: any subset of the fields. */
export type CustomDrugPatch = { [K in CustomDrugField]?: string };

/** A drug as partners see it: fields that are not set are absent. */
export type CustomDrug = { custom_drug_id: string } & CustomDrugPatch;

export function isCustomDrugField(name: string): name is CustomDrugField {
  return Object.hasOwn(FIELDS, name);
}
