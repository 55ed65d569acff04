// POST .../patients/ihi-precheck against the demo HI identities: every row of the spec's
// outcomes table, precedence, and what it never does (search order: patients-search-order).
import { describe, expect, it } from 'vitest';
import { HI_DEMO_FIXTURES } from '../../src/hi-service/hi-demo-fixtures.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { bearer, givenIntegration, givenUser, requestToken, clientFor, givenClient, useTestApp } from '../given.ts';
import { DEMO, givenImportedPatient, patientBody, medicareOf } from './patients-given.ts';

const { t, c: api, notReady } = useTestApp({}, async (t) => ({ notReady: await givenClient(t, { hpio: null }) }));

const wood = DEMO.activeVerified;

async function precheckData(body: unknown, client = api) {
  const response = await client.precheck(body);
  expect(response.statusCode, response.body).toBe(200);
  const envelope = response.json();
  expect(envelope).toMatchObject({ success: true, statusCode: 200, code: 'SUCCESS' });
  return { data: envelope.data, message: envelope.message as string, text: response.body };
}

describe('outcomes table', () => {
  it('ihi_found ACTIVE + VERIFIED: create would succeed and the IHI check passes', async () => {
    const { data, message } = await precheckData(patientBody(api.g, wood, medicareOf(wood)));
    expect(data).toEqual({
      outcome: 'ihi_found',
      create_would_succeed: true,
      ihi_check_passed: true,
      searched_path: 'medicare',
      ihi_status: 'ACTIVE',
      ihi_record_status: 'VERIFIED',
    });
    expect(message).toContain('IHI found using Medicare number');
  });

  it.each([
    ['DECEASED', DEMO.deceasedVerified],
    ['RETIRED', DEMO.retiredVerified],
    ['EXPIRED', DEMO.expiredVerified],
    ['RESOLVED', DEMO.resolvedVerified],
  ])('ihi_found %s + VERIFIED: create would succeed but the IHI check fails', async (status, person) => {
    const { data } = await precheckData(patientBody(api.g, person, medicareOf(person)));
    expect(data).toMatchObject({ outcome: 'ihi_found', create_would_succeed: true, ihi_check_passed: false, ihi_status: status, ihi_record_status: 'VERIFIED' });
  });

  it.each([
    ['PROVISIONAL', DEMO.activeProvisional],
    ['UNVERIFIED', DEMO.activeUnverified],
  ])('ihi_found ACTIVE + %s: creation is rejected until verified', async (recordStatus, person) => {
    const { data, message } = await precheckData(patientBody(api.g, person, medicareOf(person)));
    expect(data).toMatchObject({ outcome: 'ihi_found', create_would_succeed: false, ihi_check_passed: false, ihi_status: 'ACTIVE', ihi_record_status: recordStatus });
    expect(message).toContain('rejected until the record is verified');
  });

  it('ihi_found without any status: not verified, so create would not succeed and no status is reported', async () => {
    const person = DEMO.withoutStatus;
    const { data } = await precheckData(patientBody(api.g, person, medicareOf(person)));
    expect(data).toEqual({ outcome: 'ihi_found', create_would_succeed: false, ihi_check_passed: false, searched_path: 'medicare' });
  });

  it('no_match: every identifier tried, none matched; create would succeed without an IHI', async () => {
    const body = { ...patientBody(api.g, wood, { ...medicareOf(wood), phone: wood.phone, email: wood.email }), given_name: 'Jessie' };
    const { data, message } = await precheckData(body);
    expect(data).toEqual({
      outcome: 'no_match',
      create_would_succeed: true,
      ihi_check_passed: false,
      searched_path: 'email',
      failed_paths: ['medicare', 'mobile'],
    });
    expect(message).toBe('No IHI found using Medicare number, mobile number or email address; the patient would be created without an IHI');
  });

  it('insufficient_data: no identifier, so no search runs and search_paths lists all seven paths', async () => {
    const searchesBefore = t.hi.searches.length;
    const { data } = await precheckData(patientBody(api.g, wood, { concession_pension_number: 'C123' }));
    expect(data).toEqual({
      outcome: 'insufficient_data',
      create_would_succeed: false,
      search_paths: [
        { path: 'ihi_number', missing: ['ihi_number'] },
        { path: 'medicare', missing: ['medicare_card_number', 'medicare_irn'] },
        { path: 'dva', missing: ['dva_file_number'] },
        { path: 'mobile', missing: ['phone'] },
        { path: 'email', missing: ['email'] },
        { path: 'australian-street-address', missing: ['australian_street_address'] },
        {
          path: 'international-address',
          missing: ['international_address.address_line', 'international_address.postcode', 'international_address.state_province', 'international_address.country'],
        },
      ],
    });
    expect(t.hi.searches.length).toBe(searchesBefore);
  });

  it('insufficient_data for a Medicare number without IRN as the only identifier: create would succeed', async () => {
    const { data } = await precheckData(patientBody(api.g, wood, { medicare_card_number: wood.medicare_card_number }));
    expect(data).toMatchObject({ outcome: 'insufficient_data', create_would_succeed: true });
    expect(data).not.toHaveProperty('ihi_check_passed');
    expect(data.search_paths[1]).toEqual({ path: 'medicare', missing: ['medicare_irn'] });
  });

  it('insufficient_data for an IRN without a Medicare number: create would not succeed', async () => {
    const { data } = await precheckData(patientBody(api.g, wood, { medicare_irn: '1' }));
    expect(data).toMatchObject({ outcome: 'insufficient_data', create_would_succeed: false });
    expect(data.search_paths[1]).toEqual({ path: 'medicare', missing: ['medicare_card_number'] });
  });

  it('already_exists: reports the stored patient and still runs the live check on the submitted data', async () => {
    const body = patientBody(api.g, wood, medicareOf(wood));
    const created = (await api.create(body)).json().data;
    const searchesBefore = t.hi.searches.length;
    const { data } = await precheckData(body);
    expect(data).toEqual({
      outcome: 'already_exists',
      create_would_succeed: true,
      ihi_check_passed: true,
      has_ihi: true,
      platform_patient_id: created.platform_patient_id,
      searched_path: 'medicare',
      ihi_status: 'ACTIVE',
      ihi_record_status: 'VERIFIED',
    });
    expect(t.hi.searches.length).toBe(searchesBefore + 1);
    const changed = await precheckData({ ...body, given_name: 'Someone Else' });
    expect(changed.data).toMatchObject({ outcome: 'already_exists', ihi_check_passed: false, searched_path: 'medicare' });
  });

  it('already_exists with has_ihi false for a patient stored without an IHI', async () => {
    const body = patientBody(api.g, wood, { medicare_card_number: wood.medicare_card_number });
    expect((await api.create(body)).statusCode).toBe(201);
    const { data } = await precheckData(body);
    expect(data).toMatchObject({ outcome: 'already_exists', create_would_succeed: true, has_ihi: false });
    expect(data).not.toHaveProperty('ihi_check_passed');
  });

  it('already_exists leaves ihi_check_passed out when the live check cannot complete', async () => {
    const offline = DEMO.unreachable;
    const body = patientBody(api.g, offline, { phone: '0400000000' });
    expect((await api.create(body)).statusCode).toBe(201);
    const { data } = await precheckData({ ...body, ...medicareOf(offline) });
    expect(data).toMatchObject({ outcome: 'already_exists', create_would_succeed: true, searched_path: 'medicare' });
    expect(data).not.toHaveProperty('ihi_check_passed');
  });

  it('organization_not_ready: the organization has no HPI-O', async () => {
    const { data, message } = await precheckData(patientBody(notReady.g, wood, medicareOf(wood)), notReady);
    expect(data).toEqual({ outcome: 'organization_not_ready', create_would_succeed: false });
    expect(message).toContain('HPI-O');
  });

  it('hi_service_error: the HI Service is unreachable, still HTTP 200 with code SUCCESS', async () => {
    const offline = DEMO.unreachable;
    const { data, message } = await precheckData(patientBody(api.g, offline, medicareOf(offline)));
    expect(data).toEqual({ outcome: 'hi_service_error', create_would_succeed: false, searched_path: 'medicare' });
    expect(message).toContain('retry later');
  });
});

describe('precedence', () => {
  it('answers 409 when several patients share the partner_patient_id, before any other outcome', async () => {
    for (const client of [api, notReady]) {
      const shared = `LEGACY-${client.g.organizationId.slice(0, 8)}`;
      await givenImportedPatient(t, client.g, shared);
      await givenImportedPatient(t, client.g, shared);
      const response = await client.precheck({ ...patientBody(client.g, wood), partner_patient_id: shared });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({ success: false, code: 'CONFLICT', error: { type: expect.stringMatching(/\/resource-conflict$/) } });
    }
  });

  it('puts already_exists before organization_not_ready', async () => {
    const existingId = await givenImportedPatient(t, notReady.g, 'IMPORTED-1', { ihiNumber: wood.ihi_number });
    const { data } = await precheckData({ ...patientBody(notReady.g, wood, medicareOf(wood)), partner_patient_id: 'IMPORTED-1' }, notReady);
    expect(data).toEqual({ outcome: 'already_exists', create_would_succeed: true, has_ihi: true, platform_patient_id: existingId });
  });

  it('puts organization_not_ready before insufficient_data', async () => {
    const { data } = await precheckData(patientBody(notReady.g, wood), notReady);
    expect(data.outcome).toBe('organization_not_ready');
  });

  it('only reads another organization\'s partner_patient_id as new', async () => {
    await givenImportedPatient(t, notReady.g, 'SHARED-ACROSS-ORGS');
    await givenImportedPatient(t, notReady.g, 'SHARED-ACROSS-ORGS');
    const { data } = await precheckData({ ...patientBody(api.g, wood, medicareOf(wood)), partner_patient_id: 'SHARED-ACROSS-ORGS' });
    expect(data.outcome).toBe('ihi_found');
  });
});

describe('what the precheck never does', () => {
  it('never returns the IHI, even when the body supplied it', async () => {
    for (const person of Object.values(DEMO)) {
      const { text } = await precheckData(patientBody(api.g, person, { ihi_number: person.ihi_number }));
      expect(text).not.toContain(person.ihi_number);
    }
    for (const person of HI_DEMO_FIXTURES.patients) {
      const { text } = await precheckData(patientBody(api.g, person, { phone: person.phone ?? '0400000001', email: person.email }));
      expect(text).not.toContain(person.ihi_number);
    }
  });

  it('creates and changes nothing', async () => {
    const before = await snapshotDatabase(t.deps.database);
    for (const person of [wood, DEMO.activeProvisional, DEMO.unreachable]) {
      await precheckData(patientBody(api.g, person, medicareOf(person)));
    }
    await precheckData(patientBody(api.g, wood));
    await precheckData(patientBody(notReady.g, wood, medicareOf(wood)), notReady);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  });
});

describe('path and credentials', () => {
  it('answers 404 for a path user outside the organization, unknown, or not a UUID', async () => {
    const body = patientBody(api.g, wood, medicareOf(wood));
    const otherOrgUser = (await givenIntegration(t)).userId;
    for (const userId of [otherOrgUser, '3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f1a2b3c', 'not-a-uuid']) {
      const response = await api.precheck(body, userId);
      expect(response.statusCode, userId).toBe(404);
      expect(response.json().code).toBe('RESOURCE_NOT_FOUND');
    }
  });

  it('accepts any user of the organization in the path, not only the token\'s', async () => {
    const colleague = await givenUser(t, api.g.organizationId);
    const response = await api.precheck(patientBody(api.g, wood, medicareOf(wood)), colleague.user_id);
    expect(response.json().data.outcome).toBe('ihi_found');
  });

  it('rejects another organization\'s token with 401 and a token without create:patient with Insufficient scope', async () => {
    const other = await givenClient(t);
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/v1/organizations/${api.g.organizationId}/users/${api.g.userId}/patients/ihi-precheck`,
      headers: bearer(other.token, other.g),
      payload: patientBody(api.g, wood, medicareOf(wood)),
    });
    expect(foreign.statusCode).toBe(401);
    const narrow = clientFor(t, api.g, await requestToken(t, api.g, ['update:patient']));
    const response = await narrow.precheck(patientBody(api.g, wood, medicareOf(wood)));
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });
});
