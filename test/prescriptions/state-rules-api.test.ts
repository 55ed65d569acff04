// The state rules for controlled medicines (issue 41 item 1) through the test helper, the entry
// point partners script: the organization's practice state picks the rows, each refusal comes
// beside its field as the PBS rules' do, and the refusing rule is in the audit trail.
import { describe, expect, it } from 'vitest';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, prescribeBody, prescriptionsClient } from './prescriptions-given.ts';

const { t, c, api } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  return { c, api: prescriptionsClient(t, c) };
});

const setPracticeState = (state: 'WA' | 'VIC' | 'NSW') => t.deps.database.updateTable('organizations').set({ practice_state: state }).where('id', '=', c.g.organizationId).execute();
const morphine = (overrides: Record<string, unknown> = {}) => prescribeBody({ item_name: 'Morphine sulfate', item_strength: '10 mg', item_form: 'Tablet', schedule_number: 'S8', repeats: 2, repeat_interval_days: undefined, ...overrides });

describe('state rules through the test helper', () => {
  it('refuses a WA S8 prescription without a repeat interval beside repeat_interval_days, and records the rule', async () => {
    await setPracticeState('WA');
    const seq = await lastAuditSeq(t);
    const response = await api.prescribe(morphine());
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().error.validation).toEqual([
      { field: 'repeat_interval_days', message: expect.stringMatching(/^is required: a Schedule 8 prescription in Western Australia must state a minimum repeat dispensing interval/), code: 'VALIDATION_ERROR' },
    ]);
    const refused = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action === 'prescription.create' && entry.outcome === 'refused');
    expect(refused.map((entry) => entry.detail)).toEqual([{ reason: 'state_rule', rules: ['wa-s8-repeat-interval'] }]);
    const written = await api.prescribe(morphine({ repeat_interval_days: 14 }));
    expect(written.statusCode, written.body).toBe(201);
  });

  it('refuses a WA S8 prescription for a patient whose date of birth is not verified through an IHI, beside the medicine', async () => {
    await setPracticeState('WA');
    // Every patient erx creates has a verified IHI; one whose record is no longer verified (as an update may leave it) is set here.
    await t.deps.database.updateTable('patients').set({ ihi_record_status: 'UNVERIFIED' }).where('id', '=', c.patientId).execute();
    try {
      const response = await api.prescribe(morphine({ repeat_interval_days: 14 }));
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json().error.validation).toEqual([{ field: 'item_name', message: expect.stringMatching(/date of birth must be verified/), code: 'VALIDATION_ERROR' }]);
      // A medicine no WA rule covers is written for the same patient.
      expect((await api.prescribe(prescribeBody())).statusCode).toBe(201);
    } finally {
      await t.deps.database.updateTable('patients').set({ ihi_record_status: 'VERIFIED' }).where('id', '=', c.patientId).execute();
    }
  });

  it('applies only the practice state: the same WA-refused body is written in Victoria', async () => {
    await setPracticeState('VIC');
    expect((await api.prescribe(morphine())).statusCode).toBe(201);
  });

  it('asks NSW psychostimulants for the approval reference in controlled_substance_reference', async () => {
    await setPracticeState('NSW');
    const body = prescribeBody({ item_name: 'Methylphenidate hydrochloride', schedule_number: 'S8', repeats: 1, repeat_interval_days: 28 });
    const refused = await api.prescribe(body);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error.validation.map((issue: { field: string }) => issue.field)).toEqual(['controlled_substance_reference']);
    const written = await api.prescribe({ ...body, controlled_substance_reference: 'CNS123456' });
    expect(written.statusCode, written.body).toBe(201);
    expect(written.json().data.controlled_substance_reference).toBe('CNS123456');
    await setPracticeState('VIC');
  });
});
