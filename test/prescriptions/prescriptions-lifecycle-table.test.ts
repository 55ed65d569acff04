// The lifecycle table is the one list of prescription actions: each row, walked here, has its
// sandbox test helper route, writes its event when performed through it, and (for a change of
// an Active prescription) has its portal route and its button on an Active prescription's page.
import { describe, expect, it } from 'vitest';
import { PRESCRIPTION_ACTIONS, PRESCRIPTION_EVENT_TYPES, transitionOf, type PrescriptionAction } from '../../src/prescriptions/prescription-lifecycle.ts';
import { useTestApp } from '../given.ts';
import { signIn } from '../portal/portal-given.ts';
import { givenClinic, givenPrescription, outboxEvents, prescribeBody, prescriptionsClient } from './prescriptions-given.ts';

const { t, c, session } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  return { c, session: await signIn(t, c.g, `/embed/patients/${c.patientId}/prescriptions`) };
});

const HELPERS = '/v1/test-helpers/organizations/:organization_id/users/:user_id/patients/:patient_id/prescriptions';
const routes = () => t.app.routeCatalog.map((route) => `${route.method} ${route.url}`);

/** Performs `action` through its test helper; returns the response and the events it wrote. */
async function perform(action: PrescriptionAction) {
  const api = prescriptionsClient(t, c);
  const scid = action === 'create' ? undefined : (await givenPrescription(t, c)).scid;
  const before = (await outboxEvents(t, c.g.organizationId)).length;
  const response = scid ? await api.change(action, scid) : await api.prescribe(prescribeBody());
  return { response, events: (await outboxEvents(t, c.g.organizationId)).slice(before) };
}

describe('the lifecycle table', () => {
  it('gives each action an event of its own', () => {
    expect(PRESCRIPTION_EVENT_TYPES).toHaveLength(PRESCRIPTION_ACTIONS.length);
    expect(new Set(PRESCRIPTION_EVENT_TYPES).size).toBe(PRESCRIPTION_ACTIONS.length);
  });

  it.each(PRESCRIPTION_ACTIONS)('%s: its test helper route is registered and writes its event, named after what it did', async (action) => {
    const row = transitionOf(action);
    expect(routes()).toContain(action === 'create' ? `POST ${HELPERS}` : `POST ${HELPERS}/:scid/${action}`);
    const { response, events } = await perform(action);
    expect(response.statusCode, response.body).toBe(action === 'create' ? 201 : 200);
    expect(response.json()).toMatchObject({ message: `Prescription ${row.verb} successfully`, data: { status: row.to } });
    expect(row.event).toBe(`prescription.${row.verb}`);
    expect(events.map((event) => event.event_type)).toEqual([row.event]);
  });

  it.each(PRESCRIPTION_ACTIONS.filter((action) => transitionOf(action).from === 'Active'))(
    '%s: its portal routes are registered and its button is on an Active prescription\'s page, leading to its confirmation',
    async (action) => {
      const label = transitionOf(action).portal?.label;
      expect(label).toEqual(expect.any(String));
      for (const frame of ['dashboard', 'embed']) expect(routes()).toContain(`POST /${frame}/patients/:patient_id/prescriptions/:scid/${action}`);
      const { scid } = await givenPrescription(t, c);
      const page = `/embed/patients/${c.patientId}/prescriptions/${scid}`;
      const { body } = await session.get(page);
      expect(body).toContain('<dd aria-labelledby="status-term">Active</dd>');
      const form = new RegExp(`<form method="post" action="${page}/${action}">[\\s\\S]*?</form>`).exec(body)?.[0];
      expect(form).toContain(`>${label}</button>`);
      const confirmation = await session.submit(page, {}, `${page}/${action}`);
      expect(confirmation.statusCode).toBe(200);
      expect(confirmation.body).toContain(`<h1>${label}?</h1>`);
      expect(confirmation.body).toContain(transitionOf(action).portal?.confirmation);
    },
  );
});
