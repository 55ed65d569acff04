// A signed-in user refused a page is recorded (issue 38 item 4): a 403 for a role without the
// page's capability, a 404 for another organization's ids. Before, a user could probe another
// organization's patient ids, or pages beyond their role, and leave no trace. Each refusal is
// counted as a security alert (per address, page, reason and minute, with the user's ids), apart
// from the 7-year chain, so probing by the hundred adds counts, not chain entries.
import { describe, expect, it } from 'vitest';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { givenUser, useTestApp } from '../given.ts';
import { givenClinic, givenPrescription } from '../prescriptions/prescriptions-given.ts';
import { signIn } from './portal-given.ts';

const { t, c, other, rx } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  const rx = await givenPrescription(t, c);
  return { c, rx, other: await givenClinic(t) };
});

/** The security alerts of portal pages in the current minute, their counts waiting in memory written. */
async function pageAlertsNow() {
  await t.features.securityAlerts.flush();
  const minute = `${t.clock.now().toISOString().slice(0, 16)}Z`;
  const rows = await t.deps.database.selectFrom('security_alerts').selectAll().where('minute', '=', minute).where('reason', 'like', 'page_%').orderBy('endpoint').execute();
  return rows.map((row) => ({ endpoint: row.endpoint, reason: row.reason, count: Number(row.count), partner_id: row.partner_id, organization_id: row.organization_id, user_id: row.user_id }));
}

describe('portal refusals', () => {
  it("a 404 for another organization's patient is counted against the user who asked, not written to the chain each time", async () => {
    t.clock.advanceSeconds(60);
    const session = await signIn(t, c.g);
    const before = await lastAuditSeq(t);
    for (let i = 0; i < 5; i += 1) expect((await session.get(`/dashboard/patients/${other.patientId}`)).statusCode).toBe(404);
    expect(await pageAlertsNow()).toEqual([
      { endpoint: 'GET /dashboard/patients/:patient_id', reason: 'page_not_found', count: 5, partner_id: c.g.partnerId, organization_id: c.g.organizationId, user_id: c.g.userId },
    ]);
    expect(await auditEntriesAfter(t, before)).toEqual([]);
  });

  it('a 403 for a role without the page\'s capability is counted against that user', async () => {
    t.clock.advanceSeconds(60);
    const receptionist = await givenUser(t, c.g.organizationId, ['receptionist']);
    const session = await signIn(t, c.g, '/dashboard', receptionist.user_id);
    const before = await lastAuditSeq(t);
    expect((await session.get(`/dashboard/patients/${c.patientId}/prescriptions/${rx.scid}`)).statusCode).toBe(403);
    expect(await pageAlertsNow()).toEqual([
      { endpoint: 'GET /dashboard/patients/:patient_id/prescriptions/:scid', reason: 'page_forbidden', count: 1, partner_id: c.g.partnerId, organization_id: c.g.organizationId, user_id: receptionist.user_id },
    ]);
    expect(await auditEntriesAfter(t, before)).toEqual([]);
  });

  it('a page shown records no refusal', async () => {
    t.clock.advanceSeconds(60);
    const session = await signIn(t, c.g);
    expect((await session.get(`/dashboard/patients/${c.patientId}`)).statusCode).toBe(200);
    expect(await pageAlertsNow()).toEqual([]);
  });
});
