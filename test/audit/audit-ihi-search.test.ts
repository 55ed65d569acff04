// Every call erx makes to the HI Service for an IHI leaves one `hi.ihi_search` entry, in the
// order the paths were tried: in the precheck, in create patient (naming the patient only if
// the create made one) and in an update's re-verification; an unreachable HI Service leaves
// 'error'. The precheck's entries are written before its answer leaves, or it answers 500.
import { describe, expect, it } from 'vitest';
import { type HiServicePort, type IhiSearchPath } from '../../src/hi-service/index.ts';
import { HI_DEMO_FIXTURES } from '../../src/hi-service/hi-demo-fixtures.ts';
import { HiServiceUnreachableError } from '../../src/hi-service/hi-service-port.ts';
import { useTestApp } from '../given.ts';
import { createRecordingHiService } from '../recording-hi-service.ts';
import { countPatients, DEMO, medicareOf, patientBody } from '../patients/patients-given.ts';
import { auditEntriesAfter, expectNoneOfInAuditTrail, lastAuditSeq, theOneAuditEntry } from './audit-helpers.ts';
import { expectRequestFacts, rawValuesOf } from './patients-audit-given.ts';

// The demo HI Service, except that the paths in `down` cannot be reached.
const simulator = createRecordingHiService(HI_DEMO_FIXTURES);
const down = new Set<IhiSearchPath>();
const hiService: HiServicePort = {
  searchIhi: async (request, context) => {
    if (down.has(request.path)) throw new HiServiceUnreachableError();
    return simulator.searchIhi(request, context);
  },
  verifyProvider: (request, context) => simulator.verifyProvider(request, context),
};

const { t, c } = useTestApp({ hiService });

const wood = DEMO.activeVerified;
const victor = DEMO.dvaOnly;
const mona = DEMO.mobileOnly;

async function searchesAfter(seq: number) {
  return (await auditEntriesAfter(t, seq)).filter((entry) => entry.action === 'hi.ihi_search');
}

const aDuration = { durationMs: expect.any(Number) };

describe('IHI searches in the precheck', () => {
  it('leaves one entry per path tried, in order, each with its answer, duration and masked identifier', async () => {
    const before = await lastAuditSeq(t);
    // Wood's IHI and Medicare number find nothing with Victor's demographics; his DVA number finds him.
    const response = await c.precheck(patientBody(c.g, victor, { ihi_number: wood.ihi_number, ...medicareOf(wood), dva_file_number: victor.dva_file_number }));
    expect(response.json().data).toMatchObject({ outcome: 'ihi_found', searched_path: 'dva', failed_paths: ['ihi_number', 'medicare'] });
    const entries = await searchesAfter(before);
    expect(entries.map((entry) => [entry.outcome, entry.patient_id, entry.detail])).toEqual([
      ['success', null, { searchPath: 'ihi_number', hiResult: 'no_match', ...aDuration, ihi: `****${wood.ihi_number.slice(-4)}` }],
      ['success', null, { searchPath: 'medicare', hiResult: 'no_match', ...aDuration, medicare: `****${wood.medicare_card_number.slice(-4)}` }],
      ['success', null, { searchPath: 'dva', hiResult: 'found', ...aDuration, dva: `****${victor.dva_file_number.replace(/\s/g, '').slice(-4)}` }],
    ]);
    for (const entry of entries) {
      expectRequestFacts(entry, c.g, response);
      expect(entry.detail!.durationMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('names only the path for a search by demographics (mobile), never the number', async () => {
    const before = await lastAuditSeq(t);
    const response = await c.precheck(patientBody(c.g, mona, { phone: mona.phone }));
    expect(response.json().data).toMatchObject({ outcome: 'ihi_found', searched_path: 'mobile' });
    const entry = await theOneAuditEntry(t, before, 'hi.ihi_search');
    expect(entry.detail).toEqual({ searchPath: 'mobile', hiResult: 'found', ...aDuration });
    expectRequestFacts(entry, c.g, response);
  });

  it('names the existing patient its live check searched for', async () => {
    const body = patientBody(c.g, wood, medicareOf(wood));
    const created = await c.create(body);
    const before = await lastAuditSeq(t);
    const response = await c.precheck(body);
    expect(response.json().data).toMatchObject({ outcome: 'already_exists', searched_path: 'medicare' });
    const entry = await theOneAuditEntry(t, before, 'hi.ihi_search');
    expect(entry).toMatchObject({ outcome: 'success', patient_id: created.json().data.platform_patient_id, detail: { searchPath: 'medicare', hiResult: 'found' } });
  });

  it('records an unreachable HI Service as an error, after the paths that answered', async () => {
    down.add('dva');
    try {
      const before = await lastAuditSeq(t);
      const response = await c.precheck(patientBody(c.g, victor, { ...medicareOf(wood), dva_file_number: victor.dva_file_number }));
      expect(response.json().data).toMatchObject({ outcome: 'hi_service_error', searched_path: 'dva', failed_paths: ['medicare'] });
      const entries = await searchesAfter(before);
      expect(entries.map((entry) => [entry.outcome, entry.detail?.searchPath, entry.detail?.hiResult])).toEqual([
        ['success', 'medicare', 'no_match'],
        ['error', 'dva', 'unreachable'],
      ]);
      expectRequestFacts(entries[1]!, c.g, response);
    } finally {
      down.clear();
    }
  });
});

describe('IHI searches in create patient and update patient', () => {
  it('names the patient the create made, and commits with its patient.create entry', async () => {
    const before = await lastAuditSeq(t);
    // "Jess" is not the name the HI Service holds: both paths find nothing and the patient is made without an IHI.
    const response = await c.create(patientBody(c.g, { ...wood, given_name: 'Jess' }, { ...medicareOf(wood), phone: wood.phone }));
    expect(response.statusCode, response.body).toBe(201);
    const patientId = response.json().data.platform_patient_id as string;
    const entries = await auditEntriesAfter(t, before);
    expect(entries.map((entry) => [entry.action, entry.outcome, entry.patient_id, entry.detail?.searchPath ?? null, entry.detail?.hiResult ?? null])).toEqual([
      ['hi.ihi_search', 'success', patientId, 'medicare', 'no_match'],
      ['hi.ihi_search', 'success', patientId, 'mobile', 'no_match'],
      ['patient.create', 'success', patientId, null, null],
    ]);
    for (const entry of entries) expectRequestFacts(entry, c.g, response);

    const beforeUpdate = await lastAuditSeq(t);
    const updated = await c.update(patientId, { given_name: 'Jessica' });
    expect(updated.json().data).toMatchObject({ ihi_reverified: true, has_ihi: true });
    const reverified = await theOneAuditEntry(t, beforeUpdate, 'hi.ihi_search');
    expect(reverified).toMatchObject({ outcome: 'success', patient_id: patientId, detail: { searchPath: 'medicare', hiResult: 'found', medicare: `****${wood.medicare_card_number.slice(-4)}` } });
    expectRequestFacts(reverified, c.g, updated);
    expect((await theOneAuditEntry(t, beforeUpdate, 'patient.update')).seq).toBeGreaterThan(reverified.seq);
  });

  it('names no patient when the create is refused (record not verified), and records no patient.create', async () => {
    const person = DEMO.activeProvisional;
    const before = await lastAuditSeq(t);
    const response = await c.create(patientBody(c.g, person, medicareOf(person)));
    expect(response.statusCode).toBe(422);
    const entries = await auditEntriesAfter(t, before);
    expect(entries.map((entry) => [entry.action, entry.outcome, entry.patient_id, entry.detail?.hiResult])).toEqual([['hi.ihi_search', 'success', null, 'found']]);
    expectRequestFacts(entries[0]!, c.g, response);
  });

  it('records an unreachable HI Service in a create (503) and in an update (503) as errors', async () => {
    const created = await c.create(patientBody(c.g, wood, medicareOf(wood)));
    const patientId = created.json().data.platform_patient_id as string;
    down.add('medicare');
    try {
      const before = await lastAuditSeq(t);
      const refused = await c.create(patientBody(c.g, wood, medicareOf(wood)));
      expect(refused.statusCode).toBe(503);
      const entry = await theOneAuditEntry(t, before, 'hi.ihi_search');
      expect(entry).toMatchObject({ outcome: 'error', patient_id: null, detail: { searchPath: 'medicare', hiResult: 'unreachable' } });
      expectRequestFacts(entry, c.g, refused);
      expect((await auditEntriesAfter(t, before)).map((e) => e.action)).toEqual(['hi.ihi_search']);

      // A new birth date re-runs the search; with the IHI cleared, Medicare is the only path, and it is down.
      const beforeUpdate = await lastAuditSeq(t);
      const update = await c.update(patientId, { date_of_birth: '1985-02-15', ihi_number: null });
      expect(update.statusCode).toBe(503);
      const search = await theOneAuditEntry(t, beforeUpdate, 'hi.ihi_search');
      expect(search).toMatchObject({ outcome: 'error', patient_id: patientId, detail: { searchPath: 'medicare', hiResult: 'unreachable' } });
      expect((await auditEntriesAfter(t, beforeUpdate)).map((e) => e.action)).toEqual(['hi.ihi_search']);
    } finally {
      down.clear();
    }
  });
});

describe('fail closed', () => {
  async function withAuditTableGone<T>(work: () => Promise<T>): Promise<T> {
    await t.deps.database.schema.alterTable('audit_entries').renameTo('audit_entries_away').execute();
    try {
      return await work();
    } finally {
      await t.deps.database.schema.alterTable('audit_entries_away').renameTo('audit_entries').execute();
    }
  }

  it('answers 500 and not the precheck when its searches cannot be recorded', async () => {
    const response = await withAuditTableGone(() => c.precheck(patientBody(c.g, wood, medicareOf(wood))));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('ihi_found');
    expect(response.body).not.toContain('searched_path');
  });

  it('creates no patient when the create and its searches cannot be recorded', async () => {
    const patients = await countPatients(t, c.g.organizationId);
    const response = await withAuditTableGone(() => c.create(patientBody(c.g, wood, medicareOf(wood))));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('platform_patient_id');
    expect(await countPatients(t, c.g.organizationId)).toBe(patients);
  });
});

it('leaves no identifier or demographic this file sent in the audit trail', async () => {
  // Mona's family name is "Mobile", which is also the name of a search path: her other values are scanned.
  const monaValues = rawValuesOf(mona).filter((value) => value !== mona.family_name);
  await expectNoneOfInAuditTrail(t, [...rawValuesOf(wood), ...rawValuesOf(victor), ...rawValuesOf(DEMO.activeProvisional), ...monaValues, 'Jess', '1985-02-15']);
});
