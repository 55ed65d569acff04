// The prescriptions' tables, and the token messages they send (see database-schema.ts).
import { integer, json, oneOf, text, time } from './table-columns.ts';
import { AUSTRALIAN_STATES, DELIVERY_METHODS, PRESCRIPTION_STATUSES, PRESCRIPTION_TYPES, RECIPIENT_TYPES } from './stored-values.ts';

/**
 * A prescription as prescribed: the medicine and the prescriber's names are copied in, and
 * quantity-like values kept as the strings partners read. `delivery_*` is the current
 * delivery only (a reissue overwrites it); `flags` is the JSON object of the boolean flags set.
 */
export const prescriptionsColumns = {
  id: text(),
  /** Assigned by the PDS: null while the prescription is Pending (migration 0060). */
  scid: text().orNull(),
  /** The SHA-256 of the token page's key (/tokens/{key}), by which a presented key finds its page. */
  token: text(),
  /** A key made before keys were derived, AES-256-GCM under the secret key (migration 0082); null when derived from the id. */
  token_page_key_encrypted: text().orNull(),
  organization_id: text(),
  patient_id: text(),
  prescriber_user_id: text(),
  status: oneOf(PRESCRIPTION_STATUSES),
  prescription_type: oneOf(PRESCRIPTION_TYPES),
  item_name: text(),
  item_strength: text().orNull(),
  item_form: text().orNull(),
  route_administration: text().orNull(),
  pbs_code: text().orNull(),
  schedule_number: text().orNull(),
  quantity: text(),
  number_of_repeats_authorised: text(),
  repeat_intervals: text().orNull(),
  reason_for_prescribing: text().orNull(),
  patient_instructions: text().orNull(),
  doctor_notes: text().orNull(),
  pbsdva_authority_number: text().orNull(),
  phone_approval_authority_number: text().orNull(),
  controlled_substance_reference: text().orNull(),
  annotations: text().orNull(),
  /** The prescription's number in its prescriber's sequence (migration 0017), as the vendor's string. */
  prescriber_script_number: text().withDefault(),
  flags: json(),
  custom_drug_id: text().orNull(),
  custom_product_id: text().orNull(),
  prescriber_title: text().orNull(),
  prescriber_given_name: text(),
  prescriber_family_name: text(),
  /** Null on a paper prescription (migration 0042): it is handed over, not sent. */
  delivery_method: oneOf(DELIVERY_METHODS).orNull(),
  delivery_recipient_type: oneOf(RECIPIENT_TYPES).orNull(),
  /** The phone or e-mail the token goes to, AES-256-GCM ciphertext (migration 0070). */
  delivery_destination_encrypted: text().orNull(),
  delivery_pharmacy_id: text().orNull(),
  delivery_pharmacy_name: text().orNull(),
  error_description: text().orNull(),
  created_at: time(),
  updated_at: time(),
  updated_by_user_id: text(),
  /**
   * Who wrote it, as it was when written (migration 0041): the software's conformance id, the
   * prescriber's HPI-I and prescriber number, the organization's HPI-O, name and practice.
   * Null on prescriptions written before.
   */
  conformance_id: text().orNull(),
  /** AES-256-GCM ciphertext (migration 0071), as the provider record's. */
  prescriber_hpii_encrypted: text().orNull(),
  prescriber_number: text().orNull(),
  organization_hpio: text().orNull(),
  organization_name: text().orNull(),
  practice_street: text().orNull(),
  practice_suburb: text().orNull(),
  practice_state: oneOf(AUSTRALIAN_STATES).orNull(),
  practice_postcode: text().orNull(),
  practice_phone: text().orNull(),
  /** The dispensing the PDS reported (migration 0061); null before the PDS accepted it, and on paper. */
  supplies_dispensed: integer().orNull(),
  repeats_remaining: integer().orNull(),
  last_dispensed_at: time().orNull(),
} as const;

/** The last prescriber_script_number each prescriber was given (migration 0017). */
export const prescriberScriptNumbersColumns = {
  user_id: text(),
  last_number: integer(),
} as const;

/**
 * Each token message sent or kept (migration 0019): the token-delivery outbox. It holds no token
 * link: the message is composed when sent (migration 0070); the destination is ciphertext,
 * blanked ('') by retention once the message is finished.
 */
export const tokenMessagesColumns = {
  id: text(),
  prescription_id: text(),
  organization_id: text(),
  channel: text(),
  destination_encrypted: text(),
  prescriber_name: text().withDefault(),
  status: text(),
  attempts_made: integer().withDefault(),
  next_attempt_at: time(),
  lease_owner: text().orNull(),
  lease_expires_at: time().orNull(),
  fencing_token: integer().withDefault(),
  last_error: text().orNull(),
  provider_id: text().orNull(),
  created_at: time(),
  completed_at: time().orNull(),
} as const;
