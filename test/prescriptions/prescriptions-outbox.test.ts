// Every create, cease, cancel and reissue writes its event in the same transaction: the
// envelope the spec describes, for the partner that created the patient and the partner that
// acted (each only once it has validated the organization; the reserved values only in the
// acting partner's); and a failure after the change, before the commit,
// leaves neither the change nor the event nor its audit entry (nor a token message to send).
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createAuditTrail } from '../../src/audit/index.ts';
import { type Principal, SCOPES } from '../../src/auth/index.ts';
import { enablePartnerForOrganization } from '../../src/onboarding/index.ts';
import { DEMO_HPIO } from '../../src/onboarding/sandbox-seed.ts';
import { createUnitOfWork, type RecordSink } from '../../src/platform/db/unit-of-work.ts';
import { TRANSITIONS, type PrescriptionsContext } from '../../src/prescriptions/index.ts';
import { changePrescription } from '../../src/prescriptions/prescription-changes.ts';
import { prescribe } from '../../src/prescriptions/prescription-create.ts';
import { PRESCRIPTION_ACTIONS } from '../../src/prescriptions/prescription-lifecycle.ts';
import { createTokenMessageOutbox } from '../../src/token-delivery/index.ts';
import { createWebhookOutbox } from '../../src/webhooks/index.ts';
import { createPdsSubmissionOutbox } from '../../src/prescriptions/index.ts';
import { snapshotDatabase } from '../database-snapshot.ts';
import { bearer, givenPartner, requestToken, useTestApp } from '../given.ts';
import { givenClinic, givenPatient, givenPrescription, givenSecondPrescriber, outboxEvents, prescribeBody, prescriptionsClient, send } from './prescriptions-given.ts';

const { t, c } = useTestApp({}, async (t) => ({ c: await givenClinic(t) }));

async function newEvents<T>(organizationId: string, act: () => Promise<T>) {
  const before = (await outboxEvents(t, organizationId)).map((event) => event.id);
  const result = await act();
  return { result, events: (await outboxEvents(t, organizationId)).filter((event) => !before.includes(event.id)) };
}

describe('the event of each change', () => {
  it.each(PRESCRIPTION_ACTIONS)('%s writes one event with the envelope the spec describes', async (action) => {
    const api = prescriptionsClient(t, c);
    const reserved = { reserved_1: 'r'.repeat(40), reserved_2: '', reserved_3: null };
    const scid = action === 'create' ? undefined : (await givenPrescription(t, c)).scid;
    t.clock.advanceSeconds(5);
    const { result, events } = await newEvents(c.g.organizationId, () =>
      scid ? api.change(action, scid, reserved) : api.prescribe(prescribeBody(reserved)),
    );
    expect(result.statusCode).toBe(action === 'create' ? 201 : 200);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event!.envelope).toEqual({
      event_type: TRANSITIONS[action].event,
      event_id: event!.id,
      timestamp: t.clock.now().toISOString(),
      partner_id: c.g.partnerId,
      organization_id: c.g.organizationId,
      data: { patient_id: c.patientId, partner_patient_id: c.partnerPatientId, user_id: c.g.userId, scid: result.json().data.scid },
      metadata: { reserved_1: 'r'.repeat(30), reserved_2: null, reserved_3: null },
    });
    expect(event!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(event!.event_type).toBe(TRANSITIONS[action].event);
    expect(event!.partner_id).toBe(c.g.partnerId);
  });

  it('carries the prescriber who acted as user_id, not the one who prescribed', async () => {
    const fredId = await givenSecondPrescriber(t, c);
    const { scid } = await givenPrescription(t, c);
    const { events } = await newEvents(c.g.organizationId, () => prescriptionsClient(t, c).change('cease', scid, undefined, { userId: fredId }));
    expect(events.map((event) => (event.envelope.data as { user_id: string }).user_id)).toEqual([fredId]);
  });
});

describe('whose event', () => {
  it('is written for no one while the partner has not validated the organization; the change itself is made', async () => {
    const unvalidated = await givenClinic(t, { validated: false });
    const api = prescriptionsClient(t, unvalidated);
    const { scid } = await givenPrescription(t, unvalidated);
    expect((await api.change('reissue', scid)).statusCode).toBe(200);
    expect((await api.change('cease', scid)).statusCode).toBe(200);
    expect(await outboxEvents(t, unvalidated.g.organizationId)).toEqual([]);
  });

  /** Partner B, enabled for the clinic too, with its own token for the clinic's prescriber and a patient it created. */
  async function givenPartnerBWithPatient(options: { validated: boolean }) {
    const partnerB = await givenPartner(t);
    await enablePartnerForOrganization(t.features.onboarding, { organizationId: c.g.organizationId, partnerId: partnerB.partner_id });
    const b = { ...c.g, partnerId: partnerB.partner_id, partnerSecret: partnerB.partner_secret };
    const headers = bearer(await requestToken(t, b, [...SCOPES]), b);
    const validate = async () => expect((await send(t, 'GET', `/v1/organizations/${c.g.organizationId}/validate`, headers)).statusCode).toBe(200);
    if (options.validated) await validate();
    const { patientId, partnerPatientId } = await givenPatient(t, { g: b, headers });
    return { partnerId: partnerB.partner_id, clinic: { ...c, g: b, headers, patientId, partnerPatientId }, validate };
  }

  it("goes to the partner that created the patient, and to the partner that acted, each once it has validated", async () => {
    // The clinic's partner (A) prescribes for a patient partner B created.
    const partnerB = await givenPartnerBWithPatient({ validated: false });
    const { patientId, partnerPatientId } = partnerB.clinic;
    const byA = () => newEvents(c.g.organizationId, () => givenPrescription(t, c, {}, { patientId }));
    expect((await byA()).events.map((event) => event.partner_id)).toEqual([c.g.partnerId]);
    await partnerB.validate();
    const { events } = await byA();
    expect(events.map((event) => [event.partner_id, event.envelope.partner_id]).sort()).toEqual(
      [
        [c.g.partnerId, c.g.partnerId],
        [partnerB.partnerId, partnerB.partnerId],
      ].sort(),
    );
    for (const event of events) expect(event.envelope.data).toMatchObject({ patient_id: patientId, partner_patient_id: partnerPatientId });
  });

  it("carries the acting partner's reserved values to it alone, never to another partner", async () => {
    const partnerB = await givenPartnerBWithPatient({ validated: true });
    const { patientId } = partnerB.clinic;
    const metadataByPartner = (events: Awaited<ReturnType<typeof outboxEvents>>) => Object.fromEntries(events.map((event) => [event.partner_id, event.envelope.metadata]));
    const none = { reserved_1: null, reserved_2: null, reserved_3: null };
    // A creates (through the PDS) and reissues for B's patient, with A's values: B's events carry none of them.
    const created = await newEvents(c.g.organizationId, () => givenPrescription(t, c, { reserved_1: 'a-visit-1', reserved_3: 'a-secret' }, { patientId }));
    expect(metadataByPartner(created.events)).toEqual({ [c.g.partnerId]: { reserved_1: 'a-visit-1', reserved_2: null, reserved_3: 'a-secret' }, [partnerB.partnerId]: none });
    const { scid } = created.result;
    const reissued = await newEvents(c.g.organizationId, () => prescriptionsClient(t, c).change('reissue', scid, { reserved_2: 'a-visit-2' }, { patientId }));
    expect(metadataByPartner(reissued.events)).toEqual({ [c.g.partnerId]: { reserved_1: null, reserved_2: 'a-visit-2', reserved_3: null }, [partnerB.partnerId]: none });
    // B ceases its own patient's prescription with B's values: only B hears of it, with B's values.
    const ceased = await newEvents(c.g.organizationId, () => prescriptionsClient(t, partnerB.clinic).change('cease', scid, { reserved_1: 'b-visit' }));
    expect(metadataByPartner(ceased.events)).toEqual({ [partnerB.partnerId]: { reserved_1: 'b-visit', reserved_2: null, reserved_3: null } });
  });
});

/**
 * Remembers the statements the change's transaction ran (a plugin sees those built through
 * Kysely), and fails the transaction right after the audit trail appended its entry, the last
 * write it makes, after its event. The append's statements are compiled once (audit-store.ts),
 * out of a plugin's sight, so its sink is wrapped instead: it notes the insert once it is done.
 */
function failAfterEventInsert() {
  const tables = new WeakMap<object, string>();
  const seen: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      const node = args.node as { kind: string; into?: { table: { identifier: { name: string } } }; table?: { table: { identifier: { name: string } } } };
      const table = node.into?.table.identifier.name ?? node.table?.table.identifier.name;
      if (table) tables.set(args.queryId, `${node.kind}:${table}`);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const statement = tables.get(args.queryId);
      if (statement) seen.push(statement);
      return args.result;
    },
  };
  /** `sink` failing after its write; `unseen`: the table it writes without the plugin seeing it (the audit trail's). */
  const failingAfterAppend = <R>(sink: RecordSink<R>, unseen?: string): RecordSink<R> => ({
    ...sink,
    async write(trx, records) {
      await sink.write(trx, records);
      if (unseen) seen.push(`InsertQueryNode:${unseen}`);
      throw new Error('injected failure before COMMIT');
    },
  });
  return { plugin, seen, failingAfterAppend };
}

describe('the transactional outbox', () => {
  const principal = (): Principal => ({
    partnerId: c.g.partnerId,
    organizationId: c.g.organizationId,
    userId: c.g.userId,
    scopes: [...SCOPES],
    roles: ['provider'],
    validatedAt: t.clock.now().toISOString(),
    organizationHpio: DEMO_HPIO,
  });
  const ids = () => ({ userId: c.g.userId, patientId: c.patientId });

  it.each(PRESCRIPTION_ACTIONS)('%s: a failure after the change, before the commit, leaves neither change nor event nor audit entry', async (action) => {
    const scid = action === 'create' ? undefined : (await givenPrescription(t, c)).scid;
    const failing = failAfterEventInsert();
    const db = t.deps.database.withPlugin(failing.plugin);
    // The sinks write with the transaction they are handed: the failing one's.
    // The last sink a change writes to fails after its write: the audit trail's, or for a create (whose audit entry waits for the PDS) the PDS submission's.
    const pdsOutbox = createPdsSubmissionOutbox(t.deps);
    const audit = createAuditTrail(t.deps);
    const sinks =
      action === 'create'
        ? [createWebhookOutbox(t.deps), createTokenMessageOutbox(t.deps), audit, failing.failingAfterAppend(pdsOutbox)]
        : [createWebhookOutbox(t.deps), createTokenMessageOutbox(t.deps), pdsOutbox, failing.failingAfterAppend(audit, 'audit_entries')];
    const ctx: PrescriptionsContext = { ...t.features.prescriptions, db, unitOfWork: createUnitOfWork(db, sinks, t.deps.logger) };
    const body = { value: action === 'reissue' ? { delivery: { method: 'EMAIL', recipient_type: 'PATIENT' } } : action === 'create' ? prescribeBody() : {}, issues: [] };
    const before = await snapshotDatabase(t.deps.database);
    const run = scid ? changePrescription(ctx, principal(), { ...ids(), scid }, action as 'cease', body) : prescribe(ctx, principal(), ids(), body);
    await expect(run).rejects.toThrow('injected failure before COMMIT');
    // The change was made, the event, the token message (a reissue's) and the audit entry written, in that order, before the failure;
    // a create writes the Pending prescription and its PDS submission (its event and token message wait for the PDS's acceptance)...
    const writes = failing.seen.filter((statement) => /prescriptions|webhook_events|token_messages|pds_submissions|audit_entries/.test(statement));
    const message = action === 'reissue' ? ['InsertQueryNode:token_messages'] : [];
    const expected =
      action === 'create'
        ? ['InsertQueryNode:prescriptions', 'InsertQueryNode:pds_submissions']
        : ['UpdateQueryNode:prescriptions', 'InsertQueryNode:webhook_events', ...message, 'InsertQueryNode:audit_entries'];
    expect(writes.slice(-expected.length)).toEqual(expected);
    // ...and none survived it (the PDS's own records are not erx's: a cease or cancel it confirmed stays confirmed there).
    const { pds_simulator_scripts: _pdsAfter, ...after } = await snapshotDatabase(t.deps.database);
    const { pds_simulator_scripts: _pdsBefore, ...unchanged } = before;
    expect(after).toEqual(unchanged);
  });

  it('commits the change and its event together when nothing fails', async () => {
    const { scid } = await givenPrescription(t, c);
    const { events } = await newEvents(c.g.organizationId, () => prescriptionsClient(t, c).change('cancel', scid));
    const stored = await t.deps.database.selectFrom('prescriptions').select('status').where('scid', '=', scid).executeTakeFirstOrThrow();
    expect([stored.status, events.map((event) => event.event_type)]).toEqual(['Cancelled', ['prescription.cancelled']]);
  });
});
