// What the patient routes send the HI Service and how they take its answers, as the port now
// has them: every call names the organization's HPI-O and the acting user; a rejection
// (an Error or Fatal answer) answers as an unreachable service does but is audited apart; the
// international address is searched only with all four parts and a country the HI Service has
// a SACC code for; a name over 40 characters is stored whole and searched on its first 40.
import { describe, expect, it } from 'vitest';
import { DEMO_HPIO } from '../../src/onboarding/sandbox-seed.ts';
import { useTestApp } from '../given.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { DEMO, medicareOf, patientBody, readPatientRow } from './patients-given.ts';

const { t, c } = useTestApp({});

const wood = DEMO.activeVerified;
const rex = DEMO.rejected;
const ingrid = DEMO.internationalAddressOnly;

async function ihiSearchEntriesAfter(seq: number) {
  return (await auditEntriesAfter(t, seq)).filter((entry) => entry.action === 'hi.ihi_search');
}

describe('the context of every call', () => {
  it('precheck, create and update each name the HPI-O of the organization and the acting user', async () => {
    t.hi.reset();
    expect((await c.precheck(patientBody(c.g, wood, medicareOf(wood)))).statusCode).toBe(200);
    const created = await c.create(patientBody(c.g, wood, medicareOf(wood)));
    expect(created.statusCode, created.body).toBe(201);
    const updated = await c.update(created.json().data.platform_patient_id, { given_name: 'JESSICA ', family_name: 'wood' });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(t.hi.contexts.map(({ call }) => call)).toEqual(['searchIhi', 'searchIhi', 'searchIhi']);
    for (const context of t.hi.contexts) expect(context).toMatchObject({ hpio: DEMO_HPIO, userId: c.g.userId, hasSignal: true });
  });
});

describe('a rejection by the HI Service', () => {
  it('answers hi_service_error to the precheck, and audits the call as rejected with its code, not as unreachable', async () => {
    const before = await lastAuditSeq(t);
    const response = await c.precheck(patientBody(c.g, rex, medicareOf(rex)));
    expect(response.json().data).toEqual({ outcome: 'hi_service_error', create_would_succeed: false, searched_path: 'medicare' });
    expect(response.json().message).toBe('The HI Service answered the search using Medicare number with an error; retry later');
    const [entry, ...others] = await ihiSearchEntriesAfter(before);
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ outcome: 'error' });
    expect(entry!.detail).toMatchObject({ searchPath: 'medicare', hiResult: 'rejected', reason: 'Error HI_FIXTURE_REJECTED' });
  });

  it('answers create with 503, as for an unreachable service, creating nothing', async () => {
    const response = await c.create(patientBody(c.g, rex, medicareOf(rex)));
    expect(response.statusCode, response.body).toBe(503);
    expect(response.json().code).toBe('SERVICE_UNAVAILABLE');
  });

  it('is kept apart from no match: other demographics on the same number still reach the refusing record', async () => {
    const response = await c.precheck(patientBody(c.g, { ...rex, given_name: 'Other' }, medicareOf(rex)));
    expect(response.json().data.outcome).toBe('hi_service_error');
    const nobody = await c.precheck(patientBody(c.g, rex, { medicare_card_number: wood.medicare_card_number, medicare_irn: wood.medicare_irn }));
    expect(nobody.json().data.outcome).toBe('no_match');
  });

  it('tells an unreachable service apart in the audit trail', async () => {
    const before = await lastAuditSeq(t);
    await c.precheck(patientBody(c.g, DEMO.unreachable, medicareOf(DEMO.unreachable)));
    const [entry] = await ihiSearchEntriesAfter(before);
    expect(entry!.detail).toMatchObject({ hiResult: 'unreachable' });
    expect(entry!.detail).not.toHaveProperty('reason');
  });
});

describe('the international address', () => {
  it('finds Ingrid with all four parts', async () => {
    const response = await c.precheck(patientBody(c.g, ingrid, { international_address: ingrid.international_address }));
    expect(response.json().data).toMatchObject({ outcome: 'ihi_found', searched_path: 'international-address' });
  });

  it.each(['postcode', 'state_province'] as const)('cannot be searched without its %s: insufficient_data names it', async (part) => {
    t.hi.reset();
    const { [part]: _left, ...address } = ingrid.international_address;
    const response = await c.precheck(patientBody(c.g, ingrid, { international_address: address }));
    const data = response.json().data;
    expect(data.outcome).toBe('insufficient_data');
    expect(data.search_paths.at(-1)).toEqual({ path: 'international-address', missing: [`international_address.${part}`] });
    expect(t.hi.searches).toEqual([]);
  });

  it.each([
    ['a country name', 'United Kingdom', 'ISO 3166-1 alpha-2'],
    ['the United Kingdom as a whole', 'GB', 'GB-ENG, GB-SCT, GB-WLS or GB-NIR'],
    ['Antarctica', 'AQ', 'Antarctic territories'],
  ])('refuses %s as the country with a 422 naming the field', async (_case, country, hint) => {
    for (const send of [c.precheck, c.create]) {
      const response = await send(patientBody(c.g, ingrid, { international_address: { ...ingrid.international_address, country } }));
      expect(response.statusCode, response.body).toBe(422);
      const [issue, ...others] = response.json().error.validation;
      expect(others).toEqual([]);
      expect(issue).toMatchObject({ field: 'international_address.country', code: 'VALIDATION_ERROR' });
      expect(issue.message).toContain(hint);
    }
  });

  it('accepts a country code in any case', async () => {
    const response = await c.precheck(patientBody(c.g, ingrid, { international_address: { ...ingrid.international_address, country: 'gb-eng' } }));
    expect(response.json().data).toMatchObject({ outcome: 'ihi_found' });
  });

  it('refuses a country without a code on update too', async () => {
    const created = await c.create(patientBody(c.g, wood, medicareOf(wood)));
    const response = await c.update(created.json().data.platform_patient_id, { international_address: { ...wood.international_address, country: 'Aotearoa' } });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().error.validation).toEqual([expect.objectContaining({ field: 'international_address.country' })]);
  });
});

describe('names over 40 characters', () => {
  const hubert = DEMO.longName;

  it('are stored whole, and the search finds the record that matches on the first 40', async () => {
    const longer = `${hubert.family_name}ternw`;
    expect(longer).toHaveLength(45);
    t.hi.reset();
    const response = await c.create(patientBody(c.g, { ...hubert, family_name: longer }, medicareOf(hubert)));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({ has_ihi: true });
    expect((await readPatientRow(t, response.json().data.platform_patient_id)).family_name).toBe(longer);
    expect(t.hi.searches[0]!.demographics.family_name).toBe(longer);
  });
});
