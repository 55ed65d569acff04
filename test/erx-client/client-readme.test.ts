// The first lines of docs/partners/typed-client.md, run as written against a real erx: a
// partner's first calls with the client (create it, precheck and create a patient, walk the
// patient's prescriptions and the event feed, verify a webhook). The page's block must stay
// the lines between the README markers below, so the page cannot drift from what runs.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErxClient, verifyWebhook } from '../../packages/erx-client/src/index.ts';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/index.ts';
import { deliveryAuthHeaders, generateWebhookSecret } from '../../src/webhooks/index.ts';
import { patientBody } from '../patients/patients-given.ts';
import { givenPrescription } from '../prescriptions/prescriptions-given.ts';
import { createClientBed, type ClientBed } from './erx-client-given.ts';

let bed: ClientBed;
beforeAll(async () => {
  bed = await createClientBed();
});
afterAll(() => bed?.close());

const PAGE = path.resolve(import.meta.dirname, '../../docs/partners/typed-client.md');

/** The code block right under the page's "First lines" heading, as lines. */
function readmeBlock(): string[] {
  const text = fs.readFileSync(PAGE, 'utf8');
  const start = text.indexOf('\n## First lines\n');
  expect(start).toBeGreaterThan(0);
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(start))![1]!;
  return block.trimEnd().split('\n');
}

/** The lines between the README markers of this file, unindented. */
function linesRunHere(): string[] {
  const [start, end] = ['// README' + ':start', '      // README' + ':end'];
  const source = fs.readFileSync(import.meta.filename, 'utf8');
  const body = source.slice(source.indexOf(start) + start.length, source.indexOf(end));
  return body.split('\n').slice(1, -1).map((line) => line.replace(/^ {6}/, ''));
}

describe('the first lines with @erx/client (docs/partners/typed-client.md)', () => {
  it('are the lines this test runs', () => {
    const [importLine, blank, ...rest] = readmeBlock();
    expect(importLine).toBe("import { createErxClient, verifyWebhook } from '@erx/client';");
    expect(blank).toBe('');
    expect(rest).toEqual(linesRunHere());
    expect(rest.length).toBeLessThanOrEqual(10);
  });

  it('run against erx', async () => {
    const { g } = bed.clinic;
    const prescribed = await givenPrescription(bed.t, bed.clinic);
    const [baseUrl, partnerId, partnerSecret, organizationId, organizationSecret, userId] = [bed.url, g.partnerId, g.partnerSecret, g.organizationId, g.organizationSecret, g.userId];
    const wood = HI_DEMO_PATIENTS.activeVerified;
    const patient = patientBody(g, wood, { medicare_card_number: wood.medicare_card_number, medicare_irn: wood.medicare_irn });
    const printed: unknown[][] = [];
    const console = { log: (...values: unknown[]) => printed.push(values) };
    const reconciled: unknown[] = [];
    const reconcile = (event: unknown) => reconciled.push(event);
    let cursor: string | undefined;
    const [webhookSecret, previousWebhookSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const rawBody = JSON.stringify({ event_type: 'prescription.created', event_id: 'evt_readme', data: {} });
    const request = { headers: deliveryAuthHeaders('evt_readme', rawBody, [webhookSecret], Math.floor(Date.now() / 1000)) };
    const run = async () => {
      // README:start
      const erx = createErxClient({ baseUrl, partnerId, partnerSecret, organizationId, organizationSecret, userId });
      const check = await erx.patients.precheck(patient); // the IHI search, before creating
      const { data: created } = await erx.patients.create(patient); // safe to retry: one Idempotency-Key for all tries
      for await (const rx of erx.patients.prescriptions(created.platform_patient_id)) console.log(rx.scid, rx.status);
      for await (const page of erx.events.pages({ after: cursor })) {
        page.events.forEach(reconcile);
        cursor = page.next ?? cursor; // keep it: the next poll starts there
      }
      // In the webhook receiver, on the raw body as received (old and new secret during a rotation):
      const { payload } = verifyWebhook(rawBody, request.headers, [webhookSecret, previousWebhookSecret]);
      // README:end
      return { check, created, payload };
    };
    const { check, created, payload } = await run();
    expect(check.data.outcome).toBeDefined();
    expect(created.partner_patient_id).toBe(patient.partner_patient_id);
    expect(printed).toEqual([]);
    expect(reconciled).toContainEqual(expect.objectContaining({ event_type: 'prescription.created', data: expect.objectContaining({ scid: prescribed.scid }) }));
    expect(cursor).toEqual(expect.any(String));
    expect(payload).toEqual(JSON.parse(rawBody));
  });
});
