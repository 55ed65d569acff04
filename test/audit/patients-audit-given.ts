// What the patient and HI search audit tests share: the facts every entry of a request made by
// an integration's user must carry, and the raw values the files send (which the trail must
// never hold).
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { DEMO_HPIO } from '../../src/onboarding/sandbox-seed.ts';
import type { GivenIntegration } from '../given.ts';
import type { AuditEntryRow } from './audit-helpers.ts';

/** Who acted, for which HPI-O, from which request: the entry of `response`'s request, made by `userId` of `g`. */
export function expectRequestFacts(entry: AuditEntryRow, g: GivenIntegration, response: LightMyRequestResponse, userId = g.userId): void {
  const requestId = response.headers['x-request-id'];
  expect(requestId, 'the response names its request').toEqual(expect.any(String));
  expect(entry).toMatchObject({
    actor_kind: 'user',
    partner_id: g.partnerId,
    organization_id: g.organizationId,
    user_id: userId,
    operator: null,
    hpio: DEMO_HPIO,
    request_id: requestId,
    client_address: '127.0.0.1',
  });
  // The API's envelope carries the same id as the header.
  if (String(response.headers['content-type']).startsWith('application/json')) expect(response.json().requestId).toBe(requestId);
}

const SCANNED_FIELDS = ['ihi_number', 'medicare_card_number', 'dva_file_number', 'family_name', 'given_name', 'date_of_birth', 'phone', 'email'] as const;
const SCANNED_ADDRESS_LINES = ['street_name', 'suburb', 'address_line'] as const;

/**
 * The identifiers, names, birth date, phone, e-mail and address lines of a patient, for the
 * scan at the end of a file. Postcodes and street numbers stay out: a few digits turn up in
 * any hash or id by chance.
 */
export function rawValuesOf(person: Record<string, unknown>): string[] {
  const values = SCANNED_FIELDS.map((field) => person[field]);
  for (const address of [person.australian_street_address, person.international_address] as Array<Record<string, unknown> | undefined>) {
    if (address) values.push(...SCANNED_ADDRESS_LINES.map((line) => address[line]));
  }
  return values.filter((value): value is string => typeof value === 'string');
}
