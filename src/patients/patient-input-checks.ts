// The checks a schema cannot express, run on the same body as the schema so that one 422
// reports every failure: identifier formats (IHI check digit, Medicare checksum, IRN, mobile,
// e-mail; the spec leaves a DVA file number a plain string, so only a blank one is refused),
// a date of birth in the future (Australian time), blank names, the address alias sent twice,
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
import type { ValidationIssue } from '../platform/http/api-error.ts';
import { bodyFields, type SubmittedBody } from '../platform/http/body-validation.ts';
import { MAX_REPORTED_ISSUES } from '../platform/http/error-handler.ts';

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

/** A body after the schema and these checks: the value, and every failure found. */
export interface CheckedBody<T> {
  value: T;
  issues: ValidationIssue[];
}

/** True when an issue names the field itself or something inside it. */
function isReported(issues: ValidationIssue[], field: string): boolean {
  return issues.some((issue) => issue.field === field || issue.field.startsWith(`${field}.`));
}

function checkFields(body: Record<string, unknown>, reported: ValidationIssue[], now: Date): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const check of PATIENT_FIELD_CHECKS) {
    const value = body[check.field];
    if (typeof value !== 'string' || isReported(reported, check.field)) continue;
    if (!check.isValid(value, now)) issues.push({ field: check.field, message: check.message, code: 'VALIDATION_ERROR' });
  }
  return issues;
}

function checkAddressAlias(body: Record<string, unknown>): ValidationIssue[] {
  const both = body.australian_street_address != null && body.australian_address != null;
  const message = 'send australian_street_address or its alias australian_address, not both';
  return both ? [{ field: 'australian_address', message, code: 'VALIDATION_ERROR' }] : [];
}

// The partner a token was issued to is registered (tokens are only issued to registered,
// enabled partners), so "registered and the caller's own" is one comparison. The message
// names neither the registered slugs nor whether the value is someone else's.
function checkPartnerId(body: Record<string, unknown>, reported: ValidationIssue[], partnerId: string): ValidationIssue[] {
  const value = body.partner_id;
  if (typeof value !== 'string' || isReported(reported, 'partner_id') || value === partnerId) return [];
  return [{ field: 'partner_id', message: 'must be the registered partner id your access token was issued to', code: 'VALIDATION_ERROR' }];
}

function collectIssues(submitted: SubmittedBody, extra: (body: Record<string, unknown>, schemaIssues: ValidationIssue[]) => ValidationIssue[]) {
  return [...submitted.issues, ...extra(bodyFields(submitted), submitted.issues)].slice(0, MAX_REPORTED_ISSUES);
}

/** Schema and format failures of a patient input (precheck and create). */
export function checkPatientInputBody<T>(submitted: SubmittedBody, partnerId: string, now: Date): CheckedBody<T> {
  const issues = collectIssues(submitted, (body, reported) => [
    ...checkFields(body, reported, now),
    ...checkAddressAlias(body),
    ...checkPartnerId(body, reported, partnerId),
  ]);
  return { value: submitted.value as T, issues };
}

/** Schema and format failures of an update body (every field optional). */
export function checkPatientUpdateBody<T>(submitted: SubmittedBody, now: Date): CheckedBody<T> {
  const issues = collectIssues(submitted, (body, reported) => [...checkFields(body, reported, now), ...checkAddressAlias(body)]);
  return { value: submitted.value as T, issues };
}
