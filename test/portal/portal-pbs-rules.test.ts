// Each PBS rule on the portal form, through HTTP as a browser without JavaScript would: a PBS
// item chosen as the medicine (`pbs:<code>`), refused with the message beside the field it is
// about (marked invalid, described by the message, focused) and nothing stored; and the
// prescription that keeps the rule, created and read back through the API.
import { describe, expect, it } from 'vitest';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { useTestApp } from '../given.ts';
import { givenPbsItems, PBS_TEST_ITEMS } from '../prescriptions/pbs-given.ts';
import { givenClinic, givenPatient, prescriptionsClient } from '../prescriptions/prescriptions-given.ts';
import { scidOfRedirect, signIn } from './portal-given.ts';

const { t, c, session, veteran } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  await givenPbsItems(t);
  const veteran = await givenPatient(t, c, { dva_file_number: HI_DEMO_PATIENTS.activeVerified.dva_file_number });
  return { c, veteran: { patientId: veteran.patientId }, session: await signIn(t, c.g, `/embed/patients/${c.patientId}/prescriptions`) };
});

const { unrestricted, authority, streamlined, rpbs } = PBS_TEST_ITEMS;
const formOf = (patientId: string) => `/embed/patients/${patientId}/prescriptions`;
const create = (fields: Record<string, string>, patientId = c.patientId) =>
  session.submit(formOf(patientId), { quantity: '10', repeats: '0', send_to: 'patient-sms', intent: 'create', ...fields });
const tagOf = (html: string, id: string) => new RegExp(`<(?:input|select|textarea)[^>]*\\bid="${id}"[^>]*>`).exec(html)?.[0] ?? '';

type Case = { rule: string; fields: Record<string, string>; veteran?: boolean; field?: string; message?: string };

const REFUSED: Case[] = [
  { rule: 'a private prescription of a PBS item', fields: { medicine: `pbs:${unrestricted.pbs_code}`, private_prescription: 'yes' }, field: 'medicine', message: 'Medicine must be left out of a private prescription (private_prescription is true)' },
  { rule: 'an RPBS item for a patient without a DVA file number', fields: { medicine: `pbs:${rpbs.pbs_code}` }, field: 'medicine', message: 'Medicine is 2004N, a Repatriation (RPBS) item: it can be prescribed only for a patient with a DVA file number' },
  { rule: 'an authority item without its approval number', fields: { medicine: `pbs:${authority.pbs_code}` }, field: 'pbsdva_authority_number', message: 'Authority approval number or streamlined code is required: 2002L is an authority-required PBS item; enter its authority approval number' },
  { rule: 'a streamlined item without its code', fields: { medicine: `pbs:${streamlined.pbs_code}` }, field: 'pbsdva_authority_number', message: 'Authority approval number or streamlined code is required: 2003M is a streamlined authority item; enter one of its streamlined codes (4269, 4381)' },
  { rule: 'a streamlined item with a code not its own', fields: { medicine: `pbs:${streamlined.pbs_code}`, pbsdva_authority_number: '9999' }, field: 'pbsdva_authority_number', message: 'Authority approval number or streamlined code is not a streamlined code of 2003M (its codes: 4269, 4381)' },
  { rule: 'more than the maximum quantity', fields: { medicine: `pbs:${unrestricted.pbs_code}`, quantity: '21' }, field: 'quantity', message: 'Quantity must not exceed 20, the PBS maximum quantity of 2001K, without an authority approval number' },
  { rule: 'more than the maximum repeats', fields: { medicine: `pbs:${unrestricted.pbs_code}`, repeats: '1' }, field: 'repeats', message: 'Repeats must not exceed 0, the PBS maximum repeats of 2001K, without an authority approval number' },
];

const ACCEPTED: Case[] = [
  { rule: 'an unrestricted item within its maxima', fields: { medicine: `pbs:${unrestricted.pbs_code}`, quantity: '20' } },
  { rule: 'an RPBS item for a patient with a DVA file number', fields: { medicine: `pbs:${rpbs.pbs_code}` }, veteran: true },
  { rule: 'an authority item with its approval number', fields: { medicine: `pbs:${authority.pbs_code}`, pbsdva_authority_number: 'A1234567' } },
  { rule: 'an authority item approved by telephone', fields: { medicine: `pbs:${authority.pbs_code}`, phone_approval_authority_number: '7654321' } },
  { rule: 'a streamlined item with one of its codes', fields: { medicine: `pbs:${streamlined.pbs_code}`, pbsdva_authority_number: '4269' } },
  { rule: 'more than the maxima with an authority approval number', fields: { medicine: `pbs:${unrestricted.pbs_code}`, quantity: '60', repeats: '2', pbsdva_authority_number: 'B1' } },
];

describe('the PBS rules on the portal form', () => {
  it.each(REFUSED)('refuses $rule beside its field, which takes the focus', async ({ fields, field, message }) => {
    const before = await snapshotDatabase(t.deps.database);
    const response = await create(fields);
    expect(response.statusCode).toBe(422);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
    const tag = tagOf(response.body, field!);
    expect(tag).toContain('aria-invalid="true"');
    expect(tag).toMatch(new RegExp(`aria-describedby="[^"]*\\b${field}-error\\b`));
    expect(tag).toContain('autofocus');
    expect(new RegExp(`<p class="error" id="${field}-error">([^<]*)</p>`).exec(response.body)?.[1]).toBe(message);
  });

  it.each(ACCEPTED)('creates $rule', async ({ fields, veteran: forVeteran }) => {
    const patientId = forVeteran ? veteran.patientId : c.patientId;
    const scid = scidOfRedirect(await create(fields, patientId));
    const read = (await prescriptionsClient(t, c).read(scid, { patientId })).json().data.prescription;
    expect(read.pbs_code).toBe(fields.medicine!.slice('pbs:'.length));
    expect(read.quantity).toBe(fields.quantity ?? '10');
    if (fields.pbsdva_authority_number) expect(read.pbsdva_authority_number).toBe(fields.pbsdva_authority_number);
    if (fields.phone_approval_authority_number) expect(read.phone_approval_authority_number).toBe(fields.phone_approval_authority_number);
  });

  it("refuses another organization's patient: a 404 page, nothing stored", async () => {
    const other = await givenClinic(t);
    const before = await snapshotDatabase(t.deps.database);
    // The session's own form gives a valid CSRF token and form id; the other organization's patient is still not found.
    const response = await session.submit(formOf(c.patientId), { medicine: `pbs:${unrestricted.pbs_code}`, quantity: '10', send_to: 'patient-sms', intent: 'create' }, formOf(other.patientId));
    expect(response.statusCode).toBe(404);
    expect(await snapshotDatabase(t.deps.database)).toEqual(before);
  });
});
