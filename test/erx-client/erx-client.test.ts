// @erx/client against a real erx listening on 127.0.0.1, through a real proxy that can lose
// answers: tokens fetched once and renewed, a create retried after a lost answer with the same
// Idempotency-Key (one patient), Retry-After honoured, bounded retries, typed errors carrying
// erx's problem details, no retry of a 4xx, and the prescription and event page iterators.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCOPES, ErxApiError, ErxNetworkError, type BodyOf } from '../../packages/erx-client/src/index.ts';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { givenIntegration } from '../given.ts';
import { patientBody } from '../patients/patients-given.ts';
import { prescribeBody } from '../prescriptions/prescriptions-given.ts';
import { clientOf, createClientBed, type ClientBed } from './erx-client-given.ts';

let bed: ClientBed;
beforeAll(async () => {
  bed = await createClientBed();
});
afterAll(() => bed?.close());

const newPatient = () => {
  const wood = HI_DEMO_PATIENTS.activeVerified;
  return patientBody(bed.clinic.g, wood, { medicare_card_number: wood.medicare_card_number, medicare_irn: wood.medicare_irn });
};
const patientsNamed = (partnerPatientId: string) =>
  bed.t.deps.database.selectFrom('patients').select('id').where('organization_id', '=', bed.clinic.g.organizationId).where('partner_patient_id', '=', partnerPatientId).execute();
const isCreate = (r: { method: string; url: string }) => r.method === 'POST' && r.url.endsWith('/patients');

describe('tokens', () => {
  it('are fetched once for many calls, and renewed before they expire by the client clock', async () => {
    const { client, tokenRequests, clock } = clientOf(bed);
    await Promise.all([client.validate(), client.patients.get(bed.clinic.patientId), client.users.list()]);
    await client.patients.get(bed.clinic.patientId);
    expect(tokenRequests()).toBe(1);
    const first = await client.token();
    clock.ms += 3600_000 - 30_000;
    await client.patients.get(bed.clinic.patientId);
    expect(tokenRequests()).toBe(2);
    expect(await client.token()).not.toBe(first);
  });

  it('are renewed once when erx refuses one as expired, and the call then succeeds', async () => {
    const { client, tokenRequests } = clientOf(bed);
    await client.validate();
    bed.t.clock.advanceSeconds(3601);
    const before = bed.proxy.requests.length;
    const answer = await client.patients.get(bed.clinic.patientId);
    expect(answer.data.platform_patient_id).toBe(bed.clinic.patientId);
    expect(tokenRequests()).toBe(2);
    const sent = bed.proxy.requests.slice(before).map((r) => [r.method, r.url.split('/').slice(-1)[0], r.answeredStatus]);
    expect(sent).toEqual([['GET', bed.clinic.patientId, 401], ['POST', 'token', 200], ['GET', bed.clinic.patientId, 200]]);
  });
});

describe('retries', () => {
  it('a create whose answer is lost (502 after erx created it) is sent again with the same Idempotency-Key: one patient', async () => {
    const { client, waits } = clientOf(bed);
    const before = bed.proxy.requests.length;
    let lost = false;
    bed.proxy.plan = (r) => (isCreate(r) && !lost ? ((lost = true), { forwardThenAnswer: 502 }) : 'forward');
    const body = newPatient();
    try {
      const created = await client.patients.create(body);
      const creates = bed.proxy.requests.slice(before).filter(isCreate);
      expect(creates.map((r) => [r.upstreamStatus, r.answeredStatus])).toEqual([[201, 502], [201, 201]]);
      const keys = creates.map((r) => r.headers['idempotency-key']);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
      expect(creates[1]!.upstreamHeaders!.get('idempotent-replayed')).toBe('true');
      const stored = await patientsNamed(body.partner_patient_id);
      expect(stored.map((p) => p.id)).toEqual([created.data.platform_patient_id]);
      expect(waits).toHaveLength(1);
      expect(waits[0]).toBeGreaterThanOrEqual(125);
      expect(waits[0]).toBeLessThanOrEqual(250);
    } finally {
      bed.proxy.plan = () => 'forward';
    }
  });

  it('two creates are two keys: the key belongs to one logical call', async () => {
    const { client } = clientOf(bed);
    const before = bed.proxy.requests.length;
    await client.patients.create(newPatient());
    await client.patients.create(newPatient());
    const keys = bed.proxy.requests.slice(before).filter(isCreate).map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('honours the Retry-After of a 429', async () => {
    const { client, waits } = clientOf(bed);
    await client.validate();
    let refused = 0;
    bed.proxy.plan = () => (refused++ === 0 ? { answer: 429, headers: { 'retry-after': '7' } } : 'forward');
    try {
      const answer = await client.patients.get(bed.clinic.patientId);
      expect(answer.data.platform_patient_id).toBe(bed.clinic.patientId);
      expect(waits).toEqual([7000]);
    } finally {
      bed.proxy.plan = () => 'forward';
    }
  });

  it('after a cut connection or 5xx answers tries again with growing waits, and stops at the bound', async () => {
    const { client, waits } = clientOf(bed, { retries: 3 });
    await client.validate();
    const before = bed.proxy.requests.length;
    bed.proxy.plan = (_r, index) => (index === before ? 'cut' : { answer: 503, body: '{"upstream":"down"}' });
    try {
      const error = await client.patients.get(bed.clinic.patientId).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ErxApiError);
      expect((error as ErxApiError).status).toBe(503);
      expect(bed.proxy.requests.length - before).toBe(4);
      expect(waits).toHaveLength(3);
      waits.forEach((wait, attempt) => {
        expect(wait).toBeGreaterThanOrEqual(125 * 2 ** attempt);
        expect(wait).toBeLessThanOrEqual(250 * 2 ** attempt);
      });
      bed.proxy.plan = () => 'cut';
      const unreachable = await clientOf(bed, { retries: 1 }).client.patients.get(bed.clinic.patientId).catch((e: unknown) => e);
      expect(unreachable).toBeInstanceOf(ErxNetworkError);
      expect((unreachable as ErxNetworkError).attempts).toBe(2);
    } finally {
      bed.proxy.plan = () => 'forward';
    }
  });

  it('never repeats a POST erx offers no key for after a 5xx (rotating a secret twice would lose one)', async () => {
    const { client } = clientOf(bed);
    const before = bed.proxy.requests.length;
    bed.proxy.plan = () => ({ answer: 500 });
    try {
      await expect(client.partner.pingWebhookEndpoint()).rejects.toMatchObject({ status: 500 });
      expect(bed.proxy.requests.length - before).toBe(1);
    } finally {
      bed.proxy.plan = () => 'forward';
    }
  });
});

describe('errors', () => {
  it('a 4xx is an ErxApiError with erx problem details, and is not tried again', async () => {
    const { client, waits } = clientOf(bed);
    await client.validate();
    const before = bed.proxy.requests.length;
    const { given_name: _dropped, ...incomplete } = newPatient();
    const error = (await client.patients.create(incomplete as ReturnType<typeof newPatient>).catch((e: unknown) => e)) as ErxApiError;
    expect(error).toBeInstanceOf(ErxApiError);
    expect([400, 422]).toContain(error.status);
    expect(error.envelope).toMatchObject({ success: false, statusCode: error.status, requestId: expect.any(String) });
    expect(error.problem?.type).toMatch(/^https:\/\/api\.erx\.example\/errors\//);
    expect(error.problem?.validation?.some((issue) => issue.field.includes('given_name'))).toBe(true);
    expect(error.requestId).toBe(error.envelope?.requestId);
    expect(bed.proxy.requests.length - before).toBe(1);
    expect(waits).toEqual([]);
  });

  it('a wrong partner secret is a typed 401 (Invalid client credentials), asked once', async () => {
    const { client, tokenRequests, waits } = clientOf(bed, { partnerSecret: 'not-the-secret' });
    const error = (await client.validate().catch((e: unknown) => e)) as ErxApiError;
    expect(error).toBeInstanceOf(ErxApiError);
    expect(error.status).toBe(401);
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.problem).toMatchObject({ detail: 'Invalid client credentials' });
    expect(error.problem?.type).toMatch(/authentication-required$/);
    expect(tokenRequests()).toBe(1);
    expect(waits).toEqual([]);
  });

  it('a wrong organization secret on an organization call is a typed 401, and no renewal loop', async () => {
    const { client, tokenRequests } = clientOf(bed);
    await client.validate();
    const other = clientOf(bed, { organizationSecret: 'wrong' });
    await expect(other.client.partner.webhookEndpoint()).resolves.toMatchObject({ success: true });
    const error = (await other.client.validate().catch((e: unknown) => e)) as ErxApiError;
    expect(error).toBeInstanceOf(ErxApiError);
    expect(error.status).toBe(401);
    expect(other.tokenRequests()).toBe(1);
    expect(tokenRequests()).toBe(1);
  });

  it("another organization's patient is a typed 404, though the partner is the same", async () => {
    const { g } = bed.clinic;
    const other = await givenIntegration(bed.t, { partner: { partner_id: g.partnerId, partner_secret: g.partnerSecret } });
    const theirs = clientOf(bed, { organizationId: other.organizationId, organizationSecret: other.organizationSecret, userId: other.userId });
    const { data } = await theirs.client.patients.create({ ...newPatient(), partner_id: g.partnerId });
    const { client } = clientOf(bed);
    const error = (await client.patients.get(data.platform_patient_id).catch((e: unknown) => e)) as ErxApiError;
    expect(error).toBeInstanceOf(ErxApiError);
    expect(error.status).toBe(404);
    expect(error.code).toBe('RESOURCE_NOT_FOUND');
    await expect(theirs.client.patients.get(data.platform_patient_id)).resolves.toMatchObject({ data: { platform_patient_id: data.platform_patient_id } });
  });
});

describe('named methods', () => {
  it('reach their operations: sso, patient update, users, the catalog as the owner, the partner API', async () => {
    const { g } = bed.clinic;
    const { client } = clientOf(bed, { scopes: DEFAULT_SCOPES });
    const sso = await client.sso({ redirect_path: '/prescriptions/new' });
    expect(sso.data).toMatchObject({ sso_token: expect.any(String), redirect_url: expect.any(String) });
    const updated = await client.patients.update(bed.clinic.patientId, { email: 'jessica.wood@example.test' });
    expect(updated.data.patient_id).toBe(bed.clinic.patientId);
    expect((await client.patients.get(bed.clinic.patientId)).data.email).toBe('jessica.wood@example.test');
    expect((await client.users.get(g.userId)).data).toMatchObject({ user_id: g.userId });

    const owner = client.forUser(g.ownerId);
    const drug = { item_generic_name: 'Amoxicillin', item_strength: '500mg', item_form: 'Capsule', route_of_administration: 'Oral', quantity: '20', max_repeats: '2', poison_class: 'S4' };
    const refused = (await client.customDrugs.create([drug]).catch((e: unknown) => e)) as ErxApiError;
    expect(refused.status).toBe(401); // the spec: a user who is not an owner or admin
    await owner.customDrugs.create([drug]);
    const listed = await owner.customDrugs.list();
    expect(JSON.stringify(listed.data)).toContain('Amoxicillin');

    const types = await client.partner.eventTypes();
    expect(JSON.stringify(types.data)).toContain('prescription.created');
    expect((await client.partner.webhookEndpoint()).success).toBe(true);
  });
});

describe('pages', () => {
  it('walks a patient prescriptions across pages, and the event feed in commit order', async () => {
    const { client } = clientOf(bed);
    const { organizationId, userId } = bed.clinic.g;
    const path = { organization_id: organizationId, user_id: userId, patient_id: bed.clinic.patientId };
    const helpers = '/v1/test-helpers/organizations/{organization_id}/users/{user_id}/patients/{patient_id}/prescriptions';
    const scids: string[] = [];
    for (let n = 0; n < 5; n++) {
      const created = await client.request('post', helpers, { path, body: prescribeBody({ quantity: 10 + n }) as BodyOf<typeof helpers, 'post'> });
      scids.push((created.data as { scid: string }).scid);
    }
    const pages = [];
    for await (const page of client.patients.prescriptionPages(bed.clinic.patientId, { limit: 2 })) pages.push(page);
    expect(pages.map((p) => [p.prescriptions.length, p.pagination.offset])).toEqual([[2, 0], [2, 2], [1, 4]]);
    const walked = [];
    for await (const prescription of client.patients.prescriptions(bed.clinic.patientId, { limit: 2 })) walked.push(prescription.scid);
    expect(walked).toEqual(pages.flatMap((p) => p.prescriptions.map((x) => x.scid)));
    expect([...walked].sort()).toEqual([...scids].sort());

    const events = [];
    for await (const event of client.events.all({ limit: 2 })) events.push(event);
    const created = events.flatMap((e) => (e.event_type === 'prescription.created' ? [e.data.scid] : []));
    expect(created).toEqual(scids);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  });
});

describe('credentials', () => {
  it('are not readable from the client object', async () => {
    const { client } = clientOf(bed);
    await client.validate();
    const { partnerSecret, organizationSecret } = bed.clinic.g;
    const shown = JSON.stringify(client) + Object.keys(client).join();
    expect(shown).not.toContain(partnerSecret);
    expect(shown).not.toContain(organizationSecret);
  });
});
