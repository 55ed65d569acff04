// What each role sees and may do in the portal (capabilities.ts): a receptionist or member
// sees patients but no prescription; an rx_reader reads prescriptions and reissues them
// without being able to prescribe; owner and admin read; creating, ceasing and cancelling
// need a prescriber. (The refusals of every page by every role are in role-matrix.test.ts.)
import { describe, expect, it } from 'vitest';
import { givenUser, useTestApp } from '../given.ts';
import { givenClinic, givenPrescription, outboxEvents, storedPrescription, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';
import { csrfOf, formIdFieldOf, signIn, type PortalClient } from './portal-given.ts';

let t: TestApp;
let c: Clinic;
let scid: string;

useTestApp({}, async (app) => {
  t = app;
  c = await givenClinic(t);
  scid = (await givenPrescription(t, c)).scid;
  return {};
});

const patientPage = () => `/dashboard/patients/${c.patientId}`;
const prescriptionPage = () => `/dashboard/patients/${c.patientId}/prescriptions/${scid}`;

async function sessionOf(roles: string[]): Promise<PortalClient> {
  const user = await givenUser(t, c.g.organizationId, roles);
  return signIn(t, c.g, '/dashboard', user.user_id);
}

describe('portal roles', () => {
  it.each([[['receptionist']], [['member']]])('%j sees the patient but no prescription, and is offered no new one', async (roles) => {
    const session = await sessionOf(roles);
    const page = await session.get(patientPage());
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('does not give access to prescriptions');
    expect(page.body).not.toContain(scid);
    expect(page.body).not.toContain('New prescription');
    const refused = await session.get(prescriptionPage());
    expect(refused.statusCode).toBe(403);
    expect(refused.body).not.toContain(scid);
  });

  it.each([[['owner']], [['admin']]])('%j reads prescriptions but is offered no change and no new prescription', async (roles) => {
    const session = await sessionOf(roles);
    expect((await session.get(patientPage())).body).toContain(scid);
    const page = await session.get(prescriptionPage());
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(scid);
    expect(page.body).not.toMatch(/<button[^>]*>(Cease|Cancel|Reissue) prescription<\/button>/);
    expect(page.body).not.toContain('New prescription');
  });

  it('an rx_reader reads a prescription and reissues it (without being able to prescribe), and is offered nothing else', async () => {
    const session = await sessionOf(['rx_reader']);
    const page = await session.get(prescriptionPage());
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('>Reissue prescription</button>');
    expect(page.body).not.toMatch(/>(Cease|Cancel) prescription<\/button>/);
    const step = await session.submit(prescriptionPage(), {}, `${prescriptionPage()}/reissue`);
    expect(step.statusCode).toBe(200);
    const done = await session.post(`${prescriptionPage()}/reissue`, { _csrf: csrfOf(step.body), ...formIdFieldOf(step.body), confirm: 'yes', send_to: 'patient-email' });
    expect(done.statusCode).toBe(303);
    expect(await storedPrescription(t, scid)).toMatchObject({ status: 'Active', delivery_method: 'EMAIL' });
    const events = (await outboxEvents(t, c.g.organizationId)).filter((e) => (e.envelope.data as { scid: string }).scid === scid).map((e) => e.event_type);
    expect(events).toContain('prescription.reissued');
  });

  it('a provider who cannot prescribe yet may not reissue (409, nothing changed)', async () => {
    const session = await sessionOf(['provider']);
    const step = await session.submit(prescriptionPage(), {}, `${prescriptionPage()}/reissue`);
    const refused = await session.post(`${prescriptionPage()}/reissue`, { _csrf: csrfOf(step.body), ...formIdFieldOf(step.body), confirm: 'yes', send_to: 'patient-sms' });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('cannot prescribe');
  });
});
