// Request and response schemas of the prescription routes: the vendor's Prescription object
// (quantity-like values as strings; fields that are not set absent), the patient and
// prescriber as the read calls show them, the list's pagination, and the test helpers'
// bodies. Request limits come from prescription-fields.ts.
import { Type, type Static, type TBoolean, type TOptional } from '@sinclair/typebox';
import { SuccessEnvelopeSchema, SuccessEnvelopeWithSchema } from '../platform/http/envelope.ts';
import { StringEnum } from '../platform/http/schema-types.ts';
import { BOOLEAN_FLAGS, COUNT_LIMITS, RESERVED_INPUT_MAX_LENGTH, TEXT_LIMITS, TEXT_PATTERNS, type BooleanFlag, type CountField } from './prescription-fields.ts';
import { PRESCRIPTION_STATUSES } from './prescription-lifecycle.ts';

export { DELIVERY_METHODS, PRESCRIPTION_TYPES, RECIPIENT_TYPES } from '../platform/db/stored-values.ts';
import { DELIVERY_METHODS, PRESCRIPTION_TYPES, RECIPIENT_TYPES } from '../platform/db/stored-values.ts';

const { Optional } = Type;
const text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });
const booleanFlags = () => Object.fromEntries(BOOLEAN_FLAGS.map((flag) => [flag, Optional(Type.Boolean())])) as Record<BooleanFlag, TOptional<TBoolean>>;

// ---- requests

const count = (field: CountField) =>
  Optional(Type.Unsafe<number | string>({ type: ['integer', 'string'], maxLength: 9, description: COUNT_LIMITS[field].description }));
const reserved = () =>
  Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: RESERVED_INPUT_MAX_LENGTH, description: 'Echoed in the event metadata, truncated to 30 characters.' }));
const reservedFields = { reserved_1: reserved(), reserved_2: reserved(), reserved_3: reserved() };

export const DeliveryInput = Type.Object(
  {
    method: StringEnum(DELIVERY_METHODS, { description: 'SMS or EMAIL.' }),
    recipient_type: StringEnum(RECIPIENT_TYPES, { description: "PATIENT (the patient's mobile or e-mail) or PHARMACY." }),
    pharmacy_id: Optional(Type.String({ maxLength: 64, description: 'With PHARMACY: a pharmacy of the sandbox directory.' })),
  },
  { maxProperties: 10 },
);
export type DeliveryInput = Static<typeof DeliveryInput>;

export const PrescribeBody = Type.Object(
  {
    prescription_type: Optional(
      StringEnum(PRESCRIPTION_TYPES, { description: 'ELECTRONIC (default: its token is sent, see delivery) or PAPER (printed from the portal and handed to the patient; no delivery). Fixed for the prescription\'s life.' }),
    ),
    custom_drug_id: Optional(Type.String({ maxLength: 64, description: "An organization catalog drug or one of the prescriber's own; its fields are copied." })),
    item_name: Optional(text(TEXT_LIMITS.item_name, 'The medicine written in full (required without custom_drug_id).')),
    item_strength: Optional(text(TEXT_LIMITS.item_strength)),
    item_form: Optional(text(TEXT_LIMITS.item_form)),
    route_administration: Optional(text(TEXT_LIMITS.route_administration)),
    pbs_code: Optional(Type.String({ ...TEXT_PATTERNS.pbs_code, description: `${TEXT_PATTERNS.pbs_code.description} An item of the PBS Schedule; with it item_name may be left out.` })),
    schedule_number: Optional(Type.String(TEXT_PATTERNS.schedule_number)),
    quantity: count('quantity'),
    repeats: count('repeats'),
    repeat_interval_days: count('repeat_interval_days'),
    pbsdva_authority_number: Optional(Type.String(TEXT_PATTERNS.pbsdva_authority_number)),
    phone_approval_authority_number: Optional(Type.String(TEXT_PATTERNS.phone_approval_authority_number)),
    reason_for_prescribing: Optional(text(TEXT_LIMITS.reason_for_prescribing)),
    patient_instructions: Optional(text(TEXT_LIMITS.patient_instructions)),
    doctor_instructions: Optional(text(TEXT_LIMITS.doctor_instructions, 'Shown as doctor_notes.')),
    controlled_substance_reference: Optional(text(TEXT_LIMITS.controlled_substance_reference, 'A controlled (S8) medicine: the state permit or reference.')),
    annotations: Optional(text(TEXT_LIMITS.annotations, 'Notes printed on the prescription for the pharmacist.')),
    ...booleanFlags(),
    delivery: Optional(DeliveryInput),
    ...reservedFields,
  },
  { maxProperties: 60 },
);
export type PrescribeBody = Static<typeof PrescribeBody>;

export const ChangeBody = Type.Object({ ...reservedFields }, { maxProperties: 60, description: 'Optional; the body may be left out.' });
export type ChangeBody = Static<typeof ChangeBody>;

export const ReissueBody = Type.Object(
  { delivery: Optional(DeliveryInput), ...reservedFields },
  { maxProperties: 60, description: 'Optional; without delivery the token goes again the way it went last, to the current address.' },
);
export type ReissueBody = Static<typeof ReissueBody>;

export const PrescriptionsParams = Type.Object({ organization_id: Type.String(), user_id: Type.String(), patient_id: Type.String() });
export const PrescriptionParams = Type.Object({
  organization_id: Type.String(),
  user_id: Type.String(),
  patient_id: Type.String(),
  scid: Type.String({ description: "The SCID: 18 letters and digits (erx's own end in a check character; any other is looked up too)." }),
});

export const ListQuery = Type.Object({
  limit: Optional(Type.String({ description: 'Prescriptions per page, 1 to 50 (default 20).' })),
  lastKey: Optional(Type.String({ description: "The previous page's pagination.lastKey (opaque)." })),
});
export type ListQuery = Static<typeof ListQuery>;

// ---- responses

const optionalText = () => Optional(Type.String());

export const Delivery = Type.Object({
  method: StringEnum(DELIVERY_METHODS),
  recipient_type: StringEnum(RECIPIENT_TYPES),
  destination: Type.String({ description: 'The exact e-mail address or mobile number used.' }),
  pharmacy: Optional(Type.Object({ pharmacy_id: Type.String(), name: Type.String() })),
});
export type Delivery = Static<typeof Delivery>;

/** What every script states beside the vendor's fields (PBS regulations s41A). */
export const LegalMetadata = Type.Object(
  {
    conformance_id: Type.Union([Type.String(), Type.Null()], { description: 'The conformance identifier of the software that prepared the prescription (ERX_CONFORMANCE_ID when it was written).' }),
    prescription_id: Type.String({ description: "erx's own unique identifier of the prescription." }),
    prescriber_hpii: Type.Union([Type.String(), Type.Null()], { description: "The prescriber's HPI-I when it was written." }),
    organization_hpio: Type.Union([Type.String(), Type.Null()], { description: "The organization's HPI-O when it was written." }),
  },
  { description: "Not in the vendor's schema: what the script states of the software, itself and its writers. Null on prescriptions written before erx recorded them." },
);
export type LegalMetadata = Static<typeof LegalMetadata>;

/** What the PDS reported of the prescription's dispensing (not in the vendor's schema). */
export const Dispensing = Type.Object(
  {
    supplies_dispensed: Type.Integer({ description: 'Supplies a pharmacy dispensed so far: the original supply and each repeat.' }),
    repeats_remaining: Type.Integer({ description: 'Repeats that may still be dispensed.' }),
    last_dispensed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the last supply was dispensed; null before the first.' }),
  },
  { description: "Not in the vendor's schema: the dispensing the Prescription Delivery Service reported. Present once the PDS accepted an electronic prescription." },
);
export type Dispensing = Static<typeof Dispensing>;

export const Prescription = Type.Object({
  prescription_type: StringEnum(PRESCRIPTION_TYPES, { description: 'ELECTRONIC (a token) or PAPER (printed; no url, no delivery).' }),
  url: Optional(Type.String({ description: 'The token page (SCID, medicine and QR code); absent on a paper prescription.' })),
  scid: Optional(Type.String({ description: 'Assigned by the Prescription Delivery Service: absent while the prescription is Pending (being sent; address it by legal_metadata.prescription_id meanwhile).' })),
  status: StringEnum(PRESCRIPTION_STATUSES, { description: 'Pending: written, not yet accepted by the PDS (no SCID, no event yet). Error: the PDS refused it, or could not be reached in time (error.description says why).' }),
  created_date: Type.String({ format: 'date-time' }),
  item_name: Type.String(),
  quantity: Type.String(),
  number_of_repeats_authorised: Type.String(),
  repeat_intervals: optionalText(),
  pbs_code: optionalText(),
  item_strength: optionalText(),
  item_form: optionalText(),
  route_administration: optionalText(),
  pbsdva_authority_number: optionalText(),
  phone_approval_authority_number: optionalText(),
  schedule_number: optionalText(),
  ...booleanFlags(),
  reason_for_prescribing: optionalText(),
  patient_instructions: optionalText(),
  doctor_notes: optionalText(),
  pharmacy_name: Optional(Type.String({ description: 'The pharmacy the token was sent to (delivery to a pharmacy).' })),
  controlled_substance_reference: optionalText(),
  send_to_pharmacy: Optional(Type.String({ description: 'The pharmacy_id of the pharmacy the token was sent to (delivery to a pharmacy).' })),
  prescriber_script_number: Type.String({ description: "The prescription's number in its prescriber's own sequence (1, 2, 3, ...)." }),
  annotations: optionalText(),
  prescriber: Type.Object({ title: optionalText(), given_name: Type.String(), family_name: Type.String(), user_id: Type.String() }),
  custom_drug_details: Type.Object({ custom_product_id: optionalText() }, { description: 'Empty when the medicine is not a custom drug.' }),
  delivery: Optional(Delivery),
  legal_metadata: LegalMetadata,
  dispensing: Optional(Dispensing),
  error: Optional(Type.Object({ description: Type.String() }, { description: 'Only when status is Error.' })),
});
export type Prescription = Static<typeof Prescription>;

export const PatientSummary = Type.Object({
  given_name: Type.String(),
  family_name: Type.String(),
  date_of_birth: Type.String({ format: 'date-time' }),
  sex: Type.String(),
  patient_id: Type.String(),
  partner_patient_id: Type.String(),
});
export type PatientSummary = Static<typeof PatientSummary>;

export const Pagination = Type.Object({
  count: Type.Integer({ description: 'Prescriptions on this page.' }),
  hasNext: Type.Boolean(),
  limit: Type.Integer(),
  offset: Type.Integer({ description: 'How many prescriptions of the walk came before this page (0 on the first page).' }),
  lastKey: Type.Union([Type.String(), Type.Null()], { description: 'Pass as lastKey for the next page; null on the last page.' }),
});
export type Pagination = Static<typeof Pagination>;

export const PrescriptionListData = Type.Object({
  patient: PatientSummary,
  prescriber: Type.Object(
    { given_name: Type.String(), family_name: Type.String(), user_id: Type.String() },
    { description: "Deprecated (the path user's names); use prescriptions[].prescriber." },
  ),
  prescriptions: Type.Array(Prescription),
});
export type PrescriptionListData = Static<typeof PrescriptionListData>;

export const PrescriptionData = Type.Object({ patient: PatientSummary, prescription: Prescription });
export type PrescriptionData = Static<typeof PrescriptionData>;

export const PrescriptionListResponse = SuccessEnvelopeWithSchema(PrescriptionListData, { pagination: Pagination });
export const PrescriptionDataResponse = SuccessEnvelopeSchema(PrescriptionData);
export const PrescriptionResponse = SuccessEnvelopeSchema(Prescription);
