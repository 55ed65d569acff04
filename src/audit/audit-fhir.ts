// `erx audit export --format fhir`: each entry as a FHIR R4 AuditEvent, one JSON resource per
// line (newline-delimited, as FHIR bulk data), so another system (a SIEM, a records archive)
// takes the trail in the standard form. Ids go in as identifiers under erx's own systems, the
// HPI-O under the HI Service's; the entry's seq, hash and request id go with it as details of
// an entity naming the entry, so the export can be checked against the chain.
import { AUDIT_ACTIONS, type AuditEventType } from './audit-actions.ts';
import type { StoredAuditEntry } from './audit-chain.ts';
import type { AuditTrail } from './audit-trail.ts';
import { findAuditEntriesInWindow } from './audit-store.ts';
import { readTime } from './audit-service.ts';

const ERX = 'urn:erx';
const DCM = 'http://dicom.nema.org/resources/ontology/DCM';
const EVENT_TYPE = 'http://terminology.hl7.org/CodeSystem/audit-event-type';
const ENTITY_TYPE = 'http://terminology.hl7.org/CodeSystem/audit-entity-type';
const OBJECT_ROLE = 'http://terminology.hl7.org/CodeSystem/object-role';

type Coding = { system: string; code: string; display?: string };
type Identifier = { system: string; value: string };
type Json = Record<string, unknown>;

/** AuditEvent.type per kind of action. */
const EVENT_TYPES: Record<AuditEventType, Coding> = {
  rest: { system: EVENT_TYPE, code: 'rest', display: 'RESTful Operation' },
  query: { system: DCM, code: '110112', display: 'Query' },
  authentication: { system: DCM, code: '110114', display: 'User Authentication' },
  administration: { system: DCM, code: '110113', display: 'Security Alert' },
};

/** AuditEvent.outcome: 0 success, 4 minor failure (the caller's request refused), 8 serious failure. */
const OUTCOMES: Record<string, '0' | '4' | '8'> = { success: '0', refused: '4', error: '8' };

const MASKED_KEYS = ['ihi', 'medicare', 'dva', 'hpii'] as const;

export function toFhirAuditEvent(entry: StoredAuditEntry, site: string): Json {
  const action = AUDIT_ACTIONS[entry.action as keyof typeof AUDIT_ACTIONS];
  const detail = entry.detail === null ? {} : (JSON.parse(entry.detail) as Record<string, unknown>);
  const subtype: Coding[] = [];
  if (action && 'interaction' in action) subtype.push({ system: 'http://hl7.org/fhir/restful-interaction', code: action.interaction });
  subtype.push({ system: `${ERX}:audit-action`, code: entry.action, ...(action ? { display: action.display } : {}) });
  return {
    resourceType: 'AuditEvent',
    id: `erx-audit-${entry.seq}`,
    type: EVENT_TYPES[action?.type ?? 'administration'],
    subtype,
    action: action?.code ?? 'E',
    recorded: entry.recorded_at,
    outcome: OUTCOMES[entry.outcome] ?? '8',
    ...(typeof detail.reason === 'string' ? { outcomeDesc: detail.reason } : {}),
    agent: agentsOf(entry),
    source: {
      site,
      observer: { identifier: { system: ERX, value: 'erx' }, display: 'erx' },
      type: [{ system: 'http://terminology.hl7.org/CodeSystem/security-source-type', code: '4', display: 'Application Server' }],
    },
    entity: entitiesOf(entry, detail),
  };
}

function agentsOf(entry: StoredAuditEntry): Json[] {
  const network = entry.client_address ? { network: { address: entry.client_address, type: '2' } } : {};
  const requestor: Json = { who: whoActed(entry), requestor: true, ...network };
  const agents = [requestor];
  // The partner's software and the organization acted through, where the requestor is a user or an operator.
  if (entry.partner_id && entry.actor_kind !== 'partner') agents.push({ who: { identifier: id('partner', entry.partner_id) }, requestor: false });
  if (entry.organization_id) {
    agents.push({
      who: { identifier: id('organization', entry.organization_id), ...(entry.hpio ? { display: `HPI-O ${entry.hpio}` } : {}) },
      ...(entry.hpio ? { altId: entry.hpio } : {}),
      requestor: false,
    });
  }
  return agents;
}

function whoActed(entry: StoredAuditEntry): Json {
  switch (entry.actor_kind) {
    case 'user':
      return { identifier: id('user', entry.user_id ?? ''), display: 'user' };
    case 'partner':
      return { identifier: id('partner', entry.partner_id ?? ''), display: 'partner credentials' };
    case 'operator':
      return { identifier: id('operator', entry.operator ?? ''), display: 'operator' };
    default:
      return { display: entry.actor_kind };
  }
}

function entitiesOf(entry: StoredAuditEntry, detail: Record<string, unknown>): Json[] {
  const masked = MASKED_KEYS.filter((key) => typeof detail[key] === 'string').map((key) => ({ type: key, valueString: String(detail[key]) }));
  const entities: Json[] = [];
  if (entry.patient_id) entities.push(entity(id('patient', entry.patient_id), { code: '1', display: 'Person' }, { code: '1', display: 'Patient' }, masked.filter((d) => d.type !== 'hpii')));
  if (entry.prescription_scid) entities.push(entity(id('scid', entry.prescription_scid), { code: '2', display: 'System Object' }, { code: '4', display: 'Domain Resource' }, []));
  if (entry.target_user_id) entities.push(entity(id('user', entry.target_user_id), { code: '1', display: 'Person' }, { code: '6', display: 'User' }, masked.filter((d) => d.type === 'hpii')));
  // A read that showed several patients (the event feed) names each as a Patient entity of its own.
  const shown = Array.isArray(detail.patientIds) ? detail.patientIds.filter((value): value is string => typeof value === 'string') : [];
  for (const patientId of shown) if (patientId !== entry.patient_id) entities.push(entity(id('patient', patientId), { code: '1', display: 'Person' }, { code: '1', display: 'Patient' }, []));
  const placed = new Set([...entities.flatMap((e) => ((e.detail as Json[] | undefined) ?? []).map((d) => d.type)), ...(shown.length > 0 ? ['patientIds'] : [])]);
  const facts = Object.entries(detail)
    .filter(([key]) => !placed.has(key))
    .map(([key, value]) => ({ type: key, valueString: typeof value === 'string' ? value : JSON.stringify(value) }));
  const chain = [
    { type: 'seq', valueString: String(entry.seq) },
    { type: 'previous_hash', valueString: entry.previous_hash },
    { type: 'hash', valueString: entry.hash },
    ...(entry.request_id ? [{ type: 'request_id', valueString: entry.request_id }] : []),
  ];
  entities.push(entity(id('audit-entry', String(entry.seq)), { code: '4', display: 'Other' }, undefined, [...chain, ...facts]));
  return entities;
}

function entity(identifier: Identifier, type: { code: string; display: string }, role: { code: string; display: string } | undefined, detail: Json[]): Json {
  return {
    what: { identifier },
    type: { system: ENTITY_TYPE, ...type },
    ...(role ? { role: { system: OBJECT_ROLE, ...role } } : {}),
    ...(detail.length > 0 ? { detail } : {}),
  };
}

function id(kind: string, value: string): Identifier {
  return { system: `${ERX}:${kind}`, value };
}

/** Entries read per query while exporting. */
const EXPORT_PAGE = 1_000;

/** Writes the entries recorded in [since, until) as AuditEvents, one per line, in seq order; how many. */
export async function exportAuditEventsAsFhir(
  trail: AuditTrail,
  input: { since?: string | undefined; until?: string | undefined },
  write: (line: string) => Promise<void> | void,
): Promise<{ exported: number }> {
  const window = { since: readTime('--since', input.since), until: readTime('--until', input.until) };
  let after = Number.MIN_SAFE_INTEGER;
  let exported = 0;
  for (;;) {
    const page = await findAuditEntriesInWindow(trail.db, window, after, EXPORT_PAGE);
    for (const entry of page) await write(`${JSON.stringify(toFhirAuditEvent(entry, trail.site))}\n`);
    exported += page.length;
    if (page.length < EXPORT_PAGE) {
      await trail.noteAccess({ action: 'admin.audit_read', detail: { count: exported, endpoint: 'audit export' } });
      return { exported };
    }
    after = page[page.length - 1]!.seq;
  }
}
