// The gate before a monitored medicine is written from the portal (issue 41 item 2), without
// JavaScript: the form is sent, and when the state rules say the medicine is monitored the form
// comes back with the state's real-time prescription monitoring result in it. Amber and red
// notifications are each opened (a button of the same form, so nothing typed is lost) and then
// acknowledged with a tick; green is shown once and recorded; an unavailable check lets the
// prescriber go on after saying why; with ERX_RTPM=none the form links the state's system and
// asks the prescriber to attest they checked it. Then the step-up seam, for an S8 medicine.
import { rtpmProgramOf, type RtpmProgram } from '../controlled-medicines/index.ts';
import { readControlledStatus } from '../prescriptions/index.ts';
import { acknowledgeRtpmCheck, attestRtpm, checkPatientRtpm, openRtpmNotification, readRtpmCheck, RTPM_REASON_MAX_LENGTH, type RtpmCheckView, type RtpmSubject } from '../rtpm/index.ts';
import { bodyFields, type SubmittedBody } from '../platform/http/body-validation.ts';
import type { PortalSession } from '../sso/index.ts';
import type { PortalContext } from './portal-service.ts';
import { requireFreshFactor } from './portal-step-up.ts';
import { TICKED } from './prescription-form-fields.ts';

/** What the form shows of the check: the system, the result and what is still asked. */
export interface RtpmPanel {
  program: RtpmProgram | undefined;
  /** The monitored-medicine rule's words (the state's list). */
  monitoredBecause: string;
  /** check: the system was asked (check is its answer); attest: ERX_RTPM=none. */
  mode: 'check' | 'attest';
  check: RtpmCheckView | undefined;
  /** What the prescriber must still do, when the form came back for it. */
  problem: string | undefined;
  reasonMaxLength: number;
  /** A fresh factor is needed before signing (an S8 medicine). */
  stepUp: string | undefined;
}

export type GateAnswer = { pass: true; panel: RtpmPanel | undefined } | { pass: false; status: 200 | 422; panel: RtpmPanel };

/** The form's own fields of the gate. */
export const RTPM_FORM_FIELDS = ['rtpm_check_id', 'rtpm_acknowledge', 'rtpm_attest', 'rtpm_reason'] as const;
export type RtpmFormFields = Partial<Record<(typeof RTPM_FORM_FIELDS)[number], string>>;

/** The gate's own fields of a sent form (strings only). */
export function rtpmFieldsOf(submitted: SubmittedBody): RtpmFormFields {
  const fields = bodyFields(submitted);
  return Object.fromEntries(RTPM_FORM_FIELDS.flatMap((name) => (typeof fields[name] === 'string' ? [[name, fields[name]]] : [])));
}

/** `rtpm-open-<n>`: the button that opens notification n. */
export const RTPM_OPEN_INTENT = /^rtpm-open-(\d{1,2})$/;

const ticked = (value: string | undefined) => value === TICKED;

interface GateContext {
  ctx: PortalContext;
  session: PortalSession;
  patientId: string;
  fields: RtpmFormFields;
  body: Record<string, unknown>;
}

async function subjectOf(g: GateContext) {
  const status = await readControlledStatus(g.ctx.prescriptions, g.session, { userId: g.session.userId, patientId: g.patientId }, { value: g.body, issues: [] });
  const subject: RtpmSubject = { organizationId: g.session.organizationId, prescriberId: g.session.userId, patient: status.patient, state: status.state ?? '' };
  return { status, subject };
}

function panelOf(g: GateContext, status: Awaited<ReturnType<typeof subjectOf>>['status'], check: RtpmCheckView | undefined, problem?: string): RtpmPanel {
  return {
    program: rtpmProgramOf(status.state),
    monitoredBecause: status.monitoredBy?.message ?? '',
    mode: g.ctx.rtpm.port ? 'check' : 'attest',
    check,
    problem,
    reasonMaxLength: RTPM_REASON_MAX_LENGTH,
    stepUp: status.needsStepUp ? 'This is a Schedule 8 medicine: you will be asked for a fresh second factor before it is signed.' : undefined,
  };
}

/** Passes a medicine no rule monitors; otherwise runs, shows and records the check until its conditions are met. */
export async function passRtpmGate(g: GateContext): Promise<GateAnswer> {
  const { status, subject } = await subjectOf(g);
  if (!status.monitoredBy) return stepUpOf(g, status.needsStepUp, undefined);
  const ids = { id: g.fields.rtpm_check_id ?? '', organizationId: subject.organizationId, prescriberId: subject.prescriberId, patientId: subject.patient.id };
  let check = await readRtpmCheck(g.ctx.rtpm, ids);
  const program = rtpmProgramOf(status.state)?.name ?? "the state's monitoring system";
  if (!g.ctx.rtpm.port) {
    if (check?.outcome === 'not_connected' && check.attested) return stepUpOf(g, status.needsStepUp, panelOf(g, status, check));
    if (!ticked(g.fields.rtpm_attest)) return { pass: false, status: 422, panel: panelOf(g, status, undefined, `Check ${program} for this patient, then tick the box to attest that you did.`) };
    check = await attestRtpm(g.ctx.rtpm, subject, { kind: 'not_connected' });
    return stepUpOf(g, status.needsStepUp, panelOf(g, status, check));
  }
  if (!check || check.outcome === 'not_connected') {
    check = await checkPatientRtpm(g.ctx.rtpm, subject);
    return { pass: false, status: 200, panel: panelOf(g, status, check) };
  }
  if (check.outcome === 'unavailable' && !check.attested) {
    const reason = (g.fields.rtpm_reason ?? '').trim();
    if (reason === '') return { pass: false, status: 422, panel: panelOf(g, status, check, `${program} could not be checked: say why you are prescribing without it.`) };
    check = await attestRtpm(g.ctx.rtpm, subject, { kind: 'unavailable', check, reason });
  }
  if (check.needsAcknowledgement && !check.acknowledged) {
    if (!check.allOpened) return { pass: false, status: 422, panel: panelOf(g, status, check, 'Open each notification before you acknowledge them.') };
    if (!ticked(g.fields.rtpm_acknowledge)) return { pass: false, status: 422, panel: panelOf(g, status, check, `Tick the box to acknowledge the ${program} notifications.`) };
    check = await acknowledgeRtpmCheck(g.ctx.rtpm, check, { ...subject, patientId: subject.patient.id });
  }
  return stepUpOf(g, status.needsStepUp, panelOf(g, status, check));
}

async function stepUpOf(g: GateContext, needsStepUp: boolean, panel: RtpmPanel | undefined): Promise<GateAnswer> {
  if (!needsStepUp) return { pass: true, panel };
  const fresh = await requireFreshFactor(g.ctx, g.session);
  if (fresh.fresh) return { pass: true, panel };
  const shown = panel ?? { program: undefined, monitoredBecause: '', mode: 'check' as const, check: undefined, problem: undefined, reasonMaxLength: RTPM_REASON_MAX_LENGTH, stepUp: undefined };
  return { pass: false, status: 422, panel: { ...shown, problem: fresh.problem } };
}

/** The button "Open" of notification `index`: notes it opened and shows the form again with its text. */
export async function openNotificationOfForm(g: GateContext, index: number): Promise<RtpmPanel | undefined> {
  const { status, subject } = await subjectOf(g);
  const check = await readRtpmCheck(g.ctx.rtpm, { id: g.fields.rtpm_check_id ?? '', organizationId: subject.organizationId, prescriberId: subject.prescriberId, patientId: subject.patient.id });
  if (!check) return status.monitoredBy ? panelOf(g, status, undefined) : undefined;
  return panelOf(g, status, await openRtpmNotification(g.ctx.rtpm, check, index));
}
