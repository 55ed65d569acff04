// Where a prescription's token goes: by SMS to the patient's mobile, by e-mail to the
// patient's address, or to a pharmacy of the sandbox directory by either. The destination is
// read from the patient's record (or the directory) when the prescription is created or
// reissued, and stored as the current delivery, its destination sealed under the secret key
// (AES-256-GCM; judged in clear, sealed when written: sealedDeliveryOf). The token is sent there after the change
// commits (prescription-token-message.ts, then src/token-delivery/); without SMS or SMTP
// settings the message is kept, not sent, and the token page the url points to stands in.
import type { ValidationIssue } from '../platform/http/api-error.ts';
import { decryptSecret, encryptSecret } from '../platform/secrets.ts';
import { findSandboxPharmacy } from './pharmacy-directory.ts';
import type { PrescriptionRow } from './prescriptions-store.ts';
import { DELIVERY_METHODS, RECIPIENT_TYPES, type Delivery, type DeliveryInput } from './prescriptions-schemas.ts';

/** The delivery columns as stored: the destination sealed. */
export type StoredDeliveryColumns = Pick<
  PrescriptionRow,
  'delivery_method' | 'delivery_recipient_type' | 'delivery_destination_encrypted' | 'delivery_pharmacy_id' | 'delivery_pharmacy_name'
>;

/** A delivery as judged, its destination in clear: sealed by sealedDeliveryOf when written. */
export type DeliveryColumns = Omit<StoredDeliveryColumns, 'delivery_destination_encrypted'> & { delivery_destination: string | null };

export function sealedDeliveryOf(columns: DeliveryColumns, secretKey: Buffer): StoredDeliveryColumns {
  const { delivery_destination: destination, ...rest } = columns;
  return { ...rest, delivery_destination_encrypted: destination === null ? null : encryptSecret(destination, secretKey) };
}

/** The patient's contact details, as stored. */
export interface PatientContact {
  phone: string | null;
  email: string | null;
}

const METHOD_FIELD = 'delivery.method';
const PHARMACY_FIELD = 'delivery.pharmacy_id';
const issue = (field: string, message: string, code: ValidationIssue['code'] = 'VALIDATION_ERROR'): ValidationIssue => ({ field, message, code });

/** Whether `input` has the shape the schema asks for (otherwise the schema has reported it). */
function isWellFormed(input: unknown): input is DeliveryInput {
  if (typeof input !== 'object' || input === null) return false;
  const { method, recipient_type: recipient } = input as Record<string, unknown>;
  return (DELIVERY_METHODS as readonly unknown[]).includes(method) && (RECIPIENT_TYPES as readonly unknown[]).includes(recipient);
}

function toPatient(input: DeliveryInput, patient: PatientContact): { columns?: DeliveryColumns; issues: ValidationIssue[] } {
  if (input.pharmacy_id !== undefined) return { issues: [issue(PHARMACY_FIELD, 'is sent only with recipient_type PHARMACY')] };
  const destination = input.method === 'SMS' ? patient.phone : patient.email;
  if (destination === null) {
    const missing = input.method === 'SMS' ? 'no mobile number (phone)' : 'no e-mail address (email)';
    return { issues: [issue(METHOD_FIELD, `the patient has ${missing}; choose the other method or update the patient first`)] };
  }
  const columns = { delivery_method: input.method, delivery_recipient_type: 'PATIENT' as const, delivery_destination: destination };
  return { columns: { ...columns, delivery_pharmacy_id: null, delivery_pharmacy_name: null }, issues: [] };
}

function toPharmacy(input: DeliveryInput): { columns?: DeliveryColumns; issues: ValidationIssue[] } {
  if (input.pharmacy_id === undefined) {
    return { issues: [issue(PHARMACY_FIELD, 'delivery.pharmacy_id is required when recipient_type is PHARMACY', 'REQUIRED_FIELD')] };
  }
  const pharmacy = findSandboxPharmacy(input.pharmacy_id);
  if (!pharmacy) return { issues: [issue(PHARMACY_FIELD, 'is not a pharmacy of the sandbox directory (docs/partners/prescriptions.md lists them)')] };
  return {
    columns: {
      delivery_method: input.method,
      delivery_recipient_type: 'PHARMACY',
      delivery_destination: input.method === 'SMS' ? pharmacy.mobile : pharmacy.email,
      delivery_pharmacy_id: pharmacy.pharmacy_id,
      delivery_pharmacy_name: pharmacy.name,
    },
    issues: [],
  };
}

/**
 * The delivery `input` asks for, with its destination, or why it cannot be made. Input the
 * schema refused gives no issue here (the schema's own is reported).
 */
export function resolveDelivery(input: unknown, patient: PatientContact): { columns?: DeliveryColumns; issues: ValidationIssue[] } {
  if (!isWellFormed(input)) return { issues: [] };
  return input.recipient_type === 'PATIENT' ? toPatient(input, patient) : toPharmacy(input);
}

/** A paper prescription's: it is handed to the patient, not sent. */
export const NO_DELIVERY: DeliveryColumns = { delivery_method: null, delivery_recipient_type: null, delivery_destination: null, delivery_pharmacy_id: null, delivery_pharmacy_name: null };

/** The way the current delivery went, to send the token the same way again (an electronic prescription's). */
export function deliveryInputOf(row: Omit<StoredDeliveryColumns, 'delivery_destination_encrypted'>): DeliveryInput {
  const input = { method: row.delivery_method, recipient_type: row.delivery_recipient_type } as DeliveryInput;
  return row.delivery_pharmacy_id === null ? input : { ...input, pharmacy_id: row.delivery_pharmacy_id };
}

/** The current delivery; undefined for a paper prescription, which has none. */
export function viewOfDelivery(row: StoredDeliveryColumns, secretKey: Buffer): Delivery | undefined {
  if (row.delivery_method === null || row.delivery_recipient_type === null || row.delivery_destination_encrypted === null) return undefined;
  const destination = decryptSecret(row.delivery_destination_encrypted, secretKey);
  const delivery = { method: row.delivery_method, recipient_type: row.delivery_recipient_type, destination };
  if (row.delivery_pharmacy_id === null) return delivery;
  return { ...delivery, pharmacy: { pharmacy_id: row.delivery_pharmacy_id, name: row.delivery_pharmacy_name ?? '' } };
}
