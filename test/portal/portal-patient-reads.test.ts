// Every portal page that shows a patient writes `patient.read` (issue 38 item 4). The attack:
// the new-prescription and draft forms showed a patient's name, birth date, phone and e-mail
// with no audit entry, so a user could browse patients through them unseen. This walks every
// registered session GET (pages added later are walked too) and the forms' re-renders: each
// answer that shows the patient's name must have written a patient.read of that patient.
import { describe, expect, it } from 'vitest';
import type { RouteCatalogEntry } from '../../src/auth/index.ts';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPrescription } from '../prescriptions/prescriptions-given.ts';
import { draftFormPath, prepareDraftAs, sessionWithRoles } from './approval-given.ts';
import { signIn, type PortalClient } from './portal-given.ts';

const NAME = HI_DEMO_PATIENTS.activeVerified.family_name;
let scid: string;
/** A paper prescription: the PDF route serves only those. */
let paperScid: string;
let draftId: string;

const { t, c, session, manager } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  scid = (await givenPrescription(t, c)).scid;
  paperScid = (await givenPrescription(t, c, { prescription_type: 'PAPER', delivery: undefined })).reference;
  const manager = await sessionWithRoles(t, c, ['rx_queue_manager']);
  draftId = await prepareDraftAs(manager, c, c.g.userId);
  return { c, session: await signIn(t, c.g), manager };
});

const concrete = (url: string) => url.replace(':patient_id', c.patientId).replace(':scid', url.endsWith('/pdf') ? paperScid : scid).replace(':draft_id', draftId);
const sessionFor = (route: RouteCatalogEntry): PortalClient => (route.auth.kind === 'session' && route.auth.capability === 'portal:prepare_draft' ? manager : session);

/** The patient.read entries of the patient written while `request` ran, and whether its answer showed the patient. */
async function readsDuring(request: () => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>) {
  const before = await lastAuditSeq(t);
  const response = await request();
  const html = String(response.headers['content-type'] ?? '').startsWith('text/html');
  // A form re-rendered with field errors is a 422 page: it shows the patient as much as a 200 does.
  const shows = (response.statusCode === 200 || response.statusCode === 422) && html && response.body.includes(NAME);
  const reads = (await auditEntriesAfter(t, before)).filter((e) => e.action === 'patient.read' && e.patient_id === c.patientId);
  return { response, shows, reads };
}

describe('portal pages that show a patient', () => {
  it('every session GET that renders the patient writes patient.read of that patient', async () => {
    const routes = t.app.routeCatalog.filter((r) => r.auth.kind === 'session' && r.method === 'GET');
    const showing: string[] = [];
    for (const route of routes) {
      const { response, shows, reads } = await readsDuring(() => sessionFor(route).get(concrete(route.url)));
      // The ids are right (no 404) and nothing fails; a page for other roles (403) shows no patient.
      expect([200, 303, 403], `${route.url}: ${response.statusCode} ${response.body.slice(0, 200)}`).toContain(response.statusCode);
      if (!shows) continue;
      showing.push(route.url);
      expect(reads.length, `GET ${route.url} shows the patient without a patient.read`).toBeGreaterThanOrEqual(1);
    }
    // The walk is not vacuous: the pages the issue names are among those it found showing the patient.
    expect(showing).toEqual(
      expect.arrayContaining(
        ['dashboard', 'embed'].flatMap((frame) => [
          `/${frame}/patients/:patient_id/prescriptions`,
          `/${frame}/patients/:patient_id/prescriptions/:scid`,
          `/${frame}/patients/:patient_id/prescription-drafts`,
          `/${frame}/prescriptions/approval`,
          `/${frame}/prescriptions/approval/:draft_id`,
        ]).concat(['/dashboard/patients/:patient_id']),
      ),
    );
  });

  it('the forms re-rendered (a medicine search, field errors) write patient.read too', async () => {
    const form = `/dashboard/patients/${c.patientId}/prescriptions`;
    for (const [client, path, fields] of [
      [session, form, { intent: 'search', search: 'amox' }],
      [session, form, { intent: 'create', quantity: 'lots' }],
      [manager, draftFormPath(c), { intent: 'search', search: 'amox' }],
      [manager, draftFormPath(c), { intent: 'create', quantity: 'lots', for_prescriber: c.g.userId }],
    ] as const) {
      const { response, shows, reads } = await readsDuring(() => client.submit(path, fields));
      expect([200, 422], response.body.slice(0, 300)).toContain(response.statusCode);
      expect(shows, `${path} ${fields.intent}`).toBe(true);
      expect(reads.length, `${path} ${fields.intent} re-rendered without a patient.read`).toBeGreaterThanOrEqual(1);
    }
  });
});
