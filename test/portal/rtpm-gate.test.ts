// The portal's gate before a monitored medicine (issue 41 item 2), through HTTP: with
// ERX_RTPM=none the form links the state's system and needs the attestation; with the simulator
// a green check is shown once and recorded, an unavailable one needs the prescriber's reason; a
// check id of another organization or prescriber counts for nothing; a medicine nobody monitors
// passes straight through. And the WA rules' refusals beside their form fields.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { call, useTestApp } from '../given.ts';
import { patientBody } from '../patients/patients-given.ts';
import { givenClinic, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';
import { pruneExpiredRecords } from '../../src/retention/index.ts';
import { csrfOf, formIdFieldOf, scidOfRedirect, signIn, type PortalClient } from './portal-given.ts';
import { decide, prepareDraftAs, sessionWithRoles } from './approval-given.ts';

const olive = { ihi_number: '8003608833357361', ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED', family_name: 'Offline', given_name: 'Olive', date_of_birth: '1960-01-01', sex: 'F', rtpm: 'unavailable' } as const;
const fixtureFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'erx-rtpm-gate-')), 'hi-fixtures.json');
fs.writeFileSync(fixtureFile, JSON.stringify({ patients: [olive] }));

const OXYCODONE = { medicine: 'pbs:2622K', schedule_number: 'S8', quantity: '10', prescription_type: 'PAPER', intent: 'create' };
const AMOXICILLIN = { medicine: 'pbs:2622B', quantity: '20', prescription_type: 'PAPER', intent: 'create' };
const formOf = (patientId: string) => `/dashboard/patients/${patientId}/prescriptions`;

/** Opens the form and sends it with `fields`; returns the answer and a way to send the same form again. */
async function sendForm(session: PortalClient, patientId: string, fields: Record<string, string>) {
  const page = await session.get(formOf(patientId));
  const base = { _csrf: csrfOf(page.body), ...formIdFieldOf(page.body) };
  const first = await session.post(formOf(patientId), { ...base, ...fields });
  return { first, again: (more: Record<string, string>) => session.post(formOf(patientId), { ...base, ...fields, ...more }) };
}
const checkIdOf = (html: string) => /name="rtpm_check_id" value="([^"]+)"/.exec(html)?.[1];
const prescriptionCount = async (t: TestApp, c: Clinic) => (await t.deps.database.selectFrom('prescriptions').select('id').where('organization_id', '=', c.g.organizationId).execute()).length;

describe('ERX_RTPM=none: the state system\'s link and the attestation', () => {
  const { t, c, session } = useTestApp({ env: { ERX_RTPM: 'none' } }, async (t) => {
    const c = await givenClinic(t);
    return { c, session: await signIn(t, c.g) };
  });

  it('refuses a monitored medicine until the prescriber attests checking SafeScript, and records the attestation', async () => {
    const seq = await lastAuditSeq(t);
    const { first, again } = await sendForm(session, c.patientId, OXYCODONE);
    expect(first.statusCode).toBe(422);
    expect(first.body).toContain('href="https://www.health.vic.gov.au/drugs-and-poisons/medicines-monitored-in-safescript"');
    expect(first.body).toContain('I checked SafeScript for this patient before prescribing');
    expect(first.body).toContain('Check SafeScript for this patient, then tick the box to attest that you did.');
    expect(await prescriptionCount(t, c)).toBe(0);
    const written = await again({ rtpm_attest: 'yes' });
    scidOfRedirect(written);
    const entries = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action.startsWith('rtpm.'));
    expect(entries.map((entry) => [entry.action, entry.detail?.rtpmOutcome])).toEqual([['rtpm.attest', 'not_connected']]);
  });

  it('passes a medicine no state list monitors without asking anything', async () => {
    const { first } = await sendForm(session, c.patientId, AMOXICILLIN);
    expect(first.statusCode).toBe(303);
    // Oxycodone without a schedule chosen is still monitored: the Victorian list names it.
    const unscheduled = await sendForm(session, c.patientId, { ...OXYCODONE, schedule_number: '' });
    expect(unscheduled.first.statusCode).toBe(422);
    expect(unscheduled.first.body).toContain('I checked SafeScript for this patient before prescribing');
  });
});

describe('ERX_RTPM=simulator: green, unavailable, and check ids out of reach', () => {
  const { t, c, other, session, oliveId } = useTestApp({ env: { ERX_RTPM: 'simulator', ERX_HI_FIXTURES: fixtureFile } }, async (t) => {
    const c = await givenClinic(t);
    const created = await call(t, 'POST', `/v1/organizations/${c.g.organizationId}/users/${c.g.userId}/patients`, c.headers, patientBody(c.g, olive as never, { ihi_number: olive.ihi_number }));
    if (created.statusCode !== 201) throw new Error(`patient: ${created.body}`);
    return { c, other: await givenClinic(t), session: await signIn(t, c.g), oliveId: { id: created.json().data.platform_patient_id as string } };
  });

  it('shows a green check once, records it, and writes on the next send', async () => {
    const seq = await lastAuditSeq(t);
    const { first, again } = await sendForm(session, c.patientId, OXYCODONE);
    expect(first.statusCode).toBe(200);
    expect(first.body).toMatch(/Result: <strong[^>]*>Green<\/strong>: no notifications\./);
    const checkId = checkIdOf(first.body)!;
    scidOfRedirect(await again({ rtpm_check_id: checkId }));
    const entries = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action.startsWith('rtpm.'));
    expect(entries.map((entry) => [entry.action, entry.outcome, entry.detail?.rtpmOutcome, entry.detail?.rtpmLevel])).toEqual([['rtpm.check', 'success', 'checked', 'green']]);
  });

  it('lets an unavailable check through only with the reason, which is kept', async () => {
    const seq = await lastAuditSeq(t);
    const { first, again } = await sendForm(session, oliveId.id, OXYCODONE);
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('Unavailable: SafeScript could not be checked just now.');
    const checkId = checkIdOf(first.body)!;
    const refused = await again({ rtpm_check_id: checkId, rtpm_reason: '   ' });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('SafeScript could not be checked: say why you are prescribing without it.');
    scidOfRedirect(await again({ rtpm_check_id: checkId, rtpm_reason: 'SafeScript down; patient known to me for 10 years' }));
    const row = await t.deps.database.selectFrom('rtpm_checks').selectAll().where('id', '=', checkId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ outcome: 'unavailable', level: null, reason: 'SafeScript down; patient known to me for 10 years' });
    const entries = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action.startsWith('rtpm.'));
    expect(entries.map((entry) => [entry.action, entry.outcome, entry.detail?.rtpmOutcome])).toEqual([['rtpm.check', 'error', 'unavailable'], ['rtpm.attest', 'success', 'unavailable']]);
    expect(JSON.stringify(entries)).not.toContain('patient known to me');
  });

  it("does not honour another organization's check id: the other prescriber's form runs its own check", async () => {
    const mine = await sendForm(session, c.patientId, OXYCODONE);
    const checkId = checkIdOf(mine.first.body)!;
    const theirs = await signIn(t, other.g);
    const { first } = await sendForm(theirs, other.patientId, { ...OXYCODONE, rtpm_check_id: checkId });
    expect(first.statusCode).toBe(200);
    expect(checkIdOf(first.body)).not.toBe(checkId);
    // Nor for the same organization's other patient.
    const { first: elsewhere } = await sendForm(session, oliveId.id, { ...OXYCODONE, rtpm_check_id: checkId });
    expect(elsewhere.statusCode).toBe(200);
    expect(checkIdOf(elsewhere.body)).not.toBe(checkId);
  });

  it('ignores an open button for a notification the check does not have, and refuses a malformed form', async () => {
    const { first, again } = await sendForm(session, c.patientId, OXYCODONE);
    const checkId = checkIdOf(first.body)!;
    const opened = await again({ rtpm_check_id: checkId, intent: 'rtpm-open-9' });
    expect(opened.statusCode).toBe(200);
    expect(checkIdOf(opened.body)).toBe(checkId);
    const tooLong = await again({ rtpm_check_id: checkId, rtpm_reason: 'x'.repeat(501) });
    expect(tooLong.statusCode).toBe(422);
  });

  it('removes the checks older than a day in its retention step, and keeps the younger ones', async () => {
    const old = new Date(t.deps.clock.now().getTime() - 25 * 60 * 60 * 1000).toISOString();
    const recent = new Date(t.deps.clock.now().getTime() - 23 * 60 * 60 * 1000).toISOString();
    const base = { organization_id: c.g.organizationId, patient_id: c.patientId, prescriber_user_id: c.g.userId, state: 'VIC', outcome: 'checked', level: 'green', notifications: '[]', opened: '[]', acknowledged_at: null, attested_at: null, reason: null };
    await t.deps.database.insertInto('rtpm_checks').values([{ ...base, id: 'old-check', created_at: old }, { ...base, id: 'recent-check', created_at: recent }]).execute();
    const report = await pruneExpiredRecords(t.features.retention);
    expect(report.counts.rtpm_checks).toBeGreaterThanOrEqual(1);
    const ids = (await t.deps.database.selectFrom('rtpm_checks').select('id').where('id', 'in', ['old-check', 'recent-check']).execute()).map((row) => row.id);
    expect(ids).toEqual(['recent-check']);
  });

  it("refuses WA's S8 rules beside their form fields: the repeat interval, and a date of birth not verified through an IHI", async () => {
    await t.deps.database.updateTable('organizations').set({ practice_state: 'WA' }).where('id', '=', c.g.organizationId).execute();
    try {
      const { first } = await sendForm(session, c.patientId, OXYCODONE);
      expect(first.statusCode).toBe(422);
      expect(first.body).toMatch(/id="repeat_interval_days-error"[^>]*>[^<]*Repeat interval \(days\) is required: a Schedule 8 prescription in Western Australia/);
      await t.deps.database.updateTable('patients').set({ ihi_record_status: null }).where('id', '=', c.patientId).execute();
      const { first: unverified } = await sendForm(session, c.patientId, { ...OXYCODONE, repeat_interval_days: '14' });
      expect(unverified.statusCode).toBe(422);
      expect(unverified.body).toMatch(/id="medicine-error"[^>]*>[^<]*date of birth must be verified/);
    } finally {
      await t.deps.database.updateTable('organizations').set({ practice_state: 'VIC' }).where('id', '=', c.g.organizationId).execute();
      await t.deps.database.updateTable('patients').set({ ihi_record_status: 'VERIFIED' }).where('id', '=', c.patientId).execute();
    }
  });
});

describe("a draft's approval passes the same gate (ERX_RTPM=none)", () => {
  const { t, c, prescriber, manager } = useTestApp({ env: { ERX_RTPM: 'none' } }, async (t) => {
    const c = await givenClinic(t);
    return { c, prescriber: await signIn(t, c.g), manager: await sessionWithRoles(t, c, ['rx_queue_manager']) };
  });

  it('approves a monitored medicine only with the attestation, and records it', async () => {
    const draftId = await prepareDraftAs(manager, c, c.g.userId, { medicine: 'pbs:2622K', schedule_number: 'S8', quantity: '10', repeats: '0' });
    const seq = await lastAuditSeq(t);
    const refused = await decide(prescriber, draftId, 'approve');
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('I checked SafeScript for this patient before prescribing');
    expect(await prescriptionCount(t, c)).toBe(0);
    const approved = await decide(prescriber, draftId, 'approve', { rtpm_attest: 'yes' });
    expect(approved.statusCode, approved.body.slice(0, 500)).toBe(303);
    expect(await prescriptionCount(t, c)).toBe(1);
    const entries = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action.startsWith('rtpm.'));
    expect(entries.map((entry) => [entry.action, entry.detail?.rtpmOutcome])).toEqual([['rtpm.attest', 'not_connected']]);
  });
});
