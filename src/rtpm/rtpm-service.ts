// Real-time prescription monitoring before a monitored medicine: run the check (audited as
// rtpm.check with its outcome and level, never the notifications' text; counted by outcome and
// level), keep what it answered for the form being filled in, note each notification the
// prescriber opens, and record the acknowledgement (rtpm.acknowledge) or the attestation
// (rtpm.attest: ERX_RTPM=none, or a check that was unavailable, with the prescriber's reason).
import type { Kysely } from 'kysely';
import type { AuditTrail } from '../audit/index.ts';
import type { Deps } from '../deps.ts';
import { loadHiSandboxFixtures } from '../hi-service/index.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { newId } from '../platform/ids.ts';
import { NO_METRICS, type Metrics } from '../platform/metrics/metrics.ts';
import { createRtpmSimulator, type RtpmLevel, type RtpmNotification, type RtpmPort } from './rtpm-port.ts';
import { findRtpmCheck, insertRtpmCheck, updateRtpmCheck, type RtpmCheckRow } from './rtpm-store.ts';

/** A check counts for the form it was made for this long; after it the prescriber checks again. */
export const RTPM_CHECK_VALID_MS = 30 * 60 * 1000;
/** Longest reason a prescriber gives for going on without a check. */
export const RTPM_REASON_MAX_LENGTH = 500;

export interface RtpmContext {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditTrail;
  metrics: Metrics;
  /** The system asked; null with ERX_RTPM=none (the prescriber attests instead). */
  port: RtpmPort | null;
}

export function createRtpmContext(deps: Pick<Deps, 'database' | 'clock' | 'config' | 'metrics'>, features: { audit: AuditTrail; port?: RtpmPort | null }): RtpmContext {
  const port = features.port !== undefined ? features.port : deps.config.rtpm === 'simulator' ? createRtpmSimulator(loadHiSandboxFixtures(deps.config.hiFixtures)) : null;
  return { db: deps.database, clock: deps.clock, audit: features.audit, metrics: deps.metrics ?? NO_METRICS, port };
}

/** Who a check is for: the organization, the prescriber, the patient (with the demographics the system matches) and the practice's state. */
export interface RtpmSubject {
  organizationId: string;
  prescriberId: string;
  patient: { id: string; family_name: string; given_name: string; date_of_birth: string; sex: string };
  state: string;
}

export interface RtpmCheckView {
  id: string;
  outcome: 'checked' | 'unavailable' | 'not_connected';
  level: RtpmLevel | null;
  notifications: Array<RtpmNotification & { opened: boolean }>;
  /** Amber and red notifications must each be opened, then acknowledged, before writing. */
  needsAcknowledgement: boolean;
  allOpened: boolean;
  acknowledged: boolean;
  attested: boolean;
  reason: string | null;
}

function viewOf(row: RtpmCheckRow): RtpmCheckView {
  const opened = new Set(JSON.parse(row.opened) as number[]);
  const notifications = (JSON.parse(row.notifications) as RtpmNotification[]).map((n, index) => ({ ...n, opened: opened.has(index) }));
  return {
    id: row.id,
    outcome: row.outcome as RtpmCheckView['outcome'],
    level: row.level as RtpmLevel | null,
    notifications,
    needsAcknowledgement: row.level === 'amber' || row.level === 'red',
    allOpened: notifications.every((n) => n.opened),
    acknowledged: row.acknowledged_at !== null,
    attested: row.attested_at !== null,
    reason: row.reason,
  };
}

const auditTarget = (subject: Pick<RtpmSubject, 'organizationId' | 'prescriberId'> & { patientId: string }) => ({ organizationId: subject.organizationId, patientId: subject.patientId, targetUserId: subject.prescriberId });

/** Asks the system about the patient (the port must be configured); a port that fails counts as unavailable. */
export async function checkPatientRtpm(ctx: RtpmContext, subject: RtpmSubject): Promise<RtpmCheckView> {
  if (!ctx.port) throw new Error('checkPatientRtpm needs an RTPM port (ERX_RTPM=simulator)');
  const { patient } = subject;
  const answer = await ctx.port
    .check({ state: subject.state, patient: { familyName: patient.family_name, givenName: patient.given_name, dateOfBirth: String(patient.date_of_birth), sex: patient.sex } })
    .catch(() => ({ outcome: 'unavailable' as const }));
  const row: RtpmCheckRow = {
    id: newId(),
    organization_id: subject.organizationId,
    patient_id: patient.id,
    prescriber_user_id: subject.prescriberId,
    state: subject.state,
    outcome: answer.outcome,
    level: answer.outcome === 'checked' ? answer.level : null,
    notifications: JSON.stringify(answer.outcome === 'checked' ? answer.notifications : []),
    opened: '[]',
    acknowledged_at: null,
    attested_at: null,
    reason: null,
    created_at: ctx.clock.now().toISOString(),
  };
  await insertRtpmCheck(ctx.db, row);
  const level = row.level ?? 'none';
  ctx.metrics.recordRtpmCheck(answer.outcome, level);
  const count = answer.outcome === 'checked' ? answer.notifications.length : 0;
  await ctx.audit.noteAccess({ action: 'rtpm.check', outcome: answer.outcome === 'checked' ? 'success' : 'error', ...auditTarget({ ...subject, patientId: patient.id }), detail: { rtpmOutcome: answer.outcome, rtpmLevel: level, notifications: count } });
  return viewOf(row);
}

/** The check `id` made by this prescriber for this patient in this organization, while it still counts; undefined otherwise. */
export async function readRtpmCheck(ctx: RtpmContext, ids: { id: string; organizationId: string; prescriberId: string; patientId: string }): Promise<RtpmCheckView | undefined> {
  if (ids.id === '') return undefined;
  const row = await findRtpmCheck(ctx.db, ids);
  if (!row || ctx.clock.now().getTime() - new Date(row.created_at).getTime() > RTPM_CHECK_VALID_MS) return undefined;
  return viewOf(row);
}

/** Notes that the prescriber opened notification `index` of the check; returns the check as it now is. */
export async function openRtpmNotification(ctx: RtpmContext, check: RtpmCheckView, index: number): Promise<RtpmCheckView> {
  if (!Number.isInteger(index) || index < 0 || index >= check.notifications.length) return check;
  const opened = check.notifications.flatMap((n, i) => (n.opened || i === index ? [i] : []));
  await updateRtpmCheck(ctx.db, check.id, { opened: JSON.stringify(opened) });
  return { ...check, notifications: check.notifications.map((n, i) => (i === index ? { ...n, opened: true } : n)), allOpened: opened.length === check.notifications.length };
}

/** Records the acknowledgement of an amber or red check whose notifications were all opened. */
export async function acknowledgeRtpmCheck(ctx: RtpmContext, check: RtpmCheckView, subject: Pick<RtpmSubject, 'organizationId' | 'prescriberId'> & { patientId: string }): Promise<RtpmCheckView> {
  if (!check.needsAcknowledgement || !check.allOpened) throw new Error('only an amber or red check whose notifications were all opened can be acknowledged');
  if (check.acknowledged) return check;
  await updateRtpmCheck(ctx.db, check.id, { acknowledged_at: ctx.clock.now().toISOString() });
  await ctx.audit.noteAccess({ action: 'rtpm.acknowledge', ...auditTarget(subject), detail: { subjectId: check.id, rtpmLevel: check.level ?? 'none', notifications: check.notifications.length } });
  return { ...check, acknowledged: true };
}

/**
 * The prescriber's attestation: with no connection (ERX_RTPM=none) that they checked the state's
 * system themself; for an unavailable check, why they go on without it (`reason`, kept in the row).
 */
export async function attestRtpm(ctx: RtpmContext, subject: RtpmSubject, attestation: { kind: 'not_connected' } | { kind: 'unavailable'; check: RtpmCheckView; reason: string }): Promise<RtpmCheckView> {
  const at = ctx.clock.now().toISOString();
  let view: RtpmCheckView;
  if (attestation.kind === 'unavailable') {
    const reason = [...attestation.reason.trim()].slice(0, RTPM_REASON_MAX_LENGTH).join('');
    await updateRtpmCheck(ctx.db, attestation.check.id, { attested_at: at, reason });
    view = { ...attestation.check, attested: true, reason };
  } else {
    const row: RtpmCheckRow = {
      id: newId(), organization_id: subject.organizationId, patient_id: subject.patient.id, prescriber_user_id: subject.prescriberId, state: subject.state,
      outcome: 'not_connected', level: null, notifications: '[]', opened: '[]', acknowledged_at: null, attested_at: at, reason: null, created_at: at,
    };
    await insertRtpmCheck(ctx.db, row);
    view = viewOf(row);
  }
  await ctx.audit.noteAccess({ action: 'rtpm.attest', ...auditTarget({ ...subject, patientId: subject.patient.id }), detail: { subjectId: view.id, rtpmOutcome: view.outcome } });
  return view;
}
