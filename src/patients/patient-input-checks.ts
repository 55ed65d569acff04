// The checks a schema cannot express, run on the same body as the schema so that one 422
// reports every failure: identifier formats (IHI check digit, Medicare checksum, IRN, mobile,
// e-mail; the spec leaves a DVA file number a plain string, so only a blank one is refused),
// a date of birth in the future (Australian time), blank names, an international address's
// country without an HI Service (SACC) code, the address alias sent twice,
// and a partner_id that is not the caller's. A field the schema already rejected is not
// checked again, so each field is reported once.
import {
  isFutureDate,
  isValidAustralianMobile,
  isValidEmail,
  isValidIhi,
  isValidMedicareCardNumber,
  isValidMedicareIrn,
} from '../identifiers/index.ts';
import { describeMissingSaccCode, saccCodeOf } from '../hi-service/index.ts';
import type { ValidationIssue } from '../platform/http/api-error.ts';
import { readBody, type BodyRead, type SubmittedBody } from '../platform/http/body-validation.ts';
import { PatientInput, PatientUpdateInput, type PatientInputBody, type PatientUpdateBody } from './patients-schemas.ts';

interface FieldCheck {
  field: string;
  isValid: (value: string, now: Date) => boolean;
  message: string;
}

const isNotBlank = (value: string) => value.trim() !== '';

export const PATIENT_FIELD_CHECKS: readonly FieldCheck[] = [
  { field: 'partner_patient_id', isValid: isNotBlank, message: 'must not be blank' },
  { field: 'given_name', isValid: isNotBlank, message: 'must not be blank' },
  { field: 'family_name', isValid: isNotBlank, message: 'must not be blank' },
  { field: 'date_of_birth', isValid: (value, now) => !isFutureDate(value, now), message: 'must not be in the future' },
  {
    field: 'ihi_number',
    isValid: isValidIhi,
    message: 'must be a 16-digit IHI starting 800360 with a valid check digit',
  },
  {
    field: 'medicare_card_number',
    isValid: isValidMedicareCardNumber,
    message: 'must be a 10-digit Medicare card number with a valid check digit',
  },
  { field: 'medicare_irn', isValid: isValidMedicareIrn, message: 'must be one digit from 1 to 9' },
  { field: 'dva_file_number', isValid: isNotBlank, message: 'must not be blank' },
  {
    field: 'phone',
    isValid: isValidAustralianMobile,
    message: 'must be an Australian mobile number, digits only: 04xxxxxxxx or 05xxxxxxxx (a +61 or 61 prefix is accepted); landlines are not accepted',
  },
  { field: 'email', isValid: isValidEmail, message: 'must be a valid e-mail address' },
];

/** True when the schema refused the field itself or something inside it. */
function isReported(refused: ReadonlySet<string>, field: string): boolean {
  for (const name of refused) if (name === field || name.startsWith(`${field}.`)) return true;
  return false;
}

function checkFields(body: Record<string, unknown>, reported: ReadonlySet<string>, now: Date): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const check of PATIENT_FIELD_CHECKS) {
    const value = body[check.field];
    if (typeof value !== 'string' || isReported(reported, check.field)) continue;
    if (!check.isValid(value, now)) issues.push({ field: check.field, message: check.message, code: 'VALIDATION_ERROR' });
  }
  return issues;
}

/** The HI Service names countries by SACC code: a country without one could never be searched. */
function checkInternationalCountry(body: Record<string, unknown>, reported: ReadonlySet<string>): ValidationIssue[] {
  const address = body.international_address;
  const field = 'international_address.country';
  if (address === null || typeof address !== 'object' || isReported(reported, field)) return [];
  const country = (address as Record<string, unknown>).country;
  if (typeof country !== 'string' || saccCodeOf(country) !== undefined) return [];
  return [{ field, message: `must be a country the HI Service has a code for: ${describeMissingSaccCode(country)}`, code: 'VALIDATION_ERROR' }];
}

function checkAddressAlias(body: Record<string, unknown>): ValidationIssue[] {
  const both = body.australian_street_address != null && body.australian_address != null;
  const message = 'send australian_street_address or its alias australian_address, not both';
  return both ? [{ field: 'australian_address', message, code: 'VALIDATION_ERROR' }] : [];
}

// The partner a token was issued to is registered (tokens are only issued to registered,
// enabled partners), so "registered and the caller's own" is one comparison. The message
// names neither the registered slugs nor whether the value is someone else's.
function checkPartnerId(body: Record<string, unknown>, reported: ReadonlySet<string>, partnerId: string): ValidationIssue[] {
  const value = body.partner_id;
  if (typeof value !== 'string' || isReported(reported, 'partner_id') || value === partnerId) return [];
  return [{ field: 'partner_id', message: 'must be the registered partner id your access token was issued to', code: 'VALIDATION_ERROR' }];
}

/** A patient input (precheck and create), or its schema and format failures. */
export function readPatientInputBody(submitted: SubmittedBody, partnerId: string, now: Date): BodyRead<PatientInputBody> {
  return readBody(PatientInput, submitted, {
    errors: (body, reported) => [
      ...checkFields(body, reported, now),
      ...checkInternationalCountry(body, reported),
      ...checkAddressAlias(body),
      ...checkPartnerId(body, reported, partnerId),
    ],
  });
}

/** An update body (every field optional), or its schema and format failures. */
export function readPatientUpdateBody(submitted: SubmittedBody, now: Date): BodyRead<PatientUpdateBody> {
  return readBody(PatientUpdateInput, submitted, {
    errors: (body, reported) => [...checkFields(body, reported, now), ...checkInternationalCountry(body, reported), ...checkAddressAlias(body)],
  });
}
