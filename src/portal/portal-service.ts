// The prescribing portal: what its pages show and do for a signed-in session (one user of one
// organization). Every operation goes through the feature that owns it (users for readiness,
// patients, custom drugs, prescriptions for every change), with the session as the caller, so
// the portal applies the API's rules and its tenancy: another organization's patient or
// prescription is a 404 here too. Prescribing and managing are in portal-prescribing.ts.
import { holdsCapability } from '../auth/index.ts';
import type { RtpmContext } from '../rtpm/index.ts';
import type { MfaContext } from '../mfa/index.ts';
import type { CustomDrugsContext } from '../custom-drugs/index.ts';
import type { MedicinesContext } from '../medicines/index.ts';
import { findPatientsOfPartnerId, showPatient, type PatientRow, type PatientsContext } from '../patients/index.ts';
import { bodyFields, type SubmittedBody } from '../platform/http/body-validation.ts';
import { listPatientPrescriptions, readPracticeGaps, referenceOf, type Prescription, type PrescriptionsContext, describeMedicine } from '../prescriptions/index.ts';
import type { Deps } from '../deps.ts';
import type { PortalSession } from '../sso/index.ts';
import { remedyOf, readPrescriberProfile, type PrescriberProfile, type UsersContext } from '../users/index.ts';
import type { EventMetadata } from '../webhooks/index.ts';
import type { PortalFormsContext } from './portal-forms-service.ts';

export interface PortalContext {
  users: UsersContext;
  patients: PatientsContext;
  customDrugs: CustomDrugsContext;
  /** The form's medicine search (PBS items and custom drugs) and the PBS item a choice names. */
  medicines: MedicinesContext;
  prescriptions: PrescriptionsContext;
  /** Real-time prescription monitoring before a monitored medicine (portal-rtpm-gate.ts). */
  rtpm: RtpmContext;
  /** The step-up before a Schedule 8 medicine is signed (portal-step-up.ts). */
  mfa: MfaContext;
  /** The prescribing forms' one-time ids (portal-forms-service.ts). */
  forms: PortalFormsContext;
}

export function createPortalContext(
  deps: Pick<Deps, 'config' | 'database' | 'clock' | 'secretKey'>,
  features: { users: UsersContext; patients: PatientsContext; customDrugs: CustomDrugsContext; medicines: MedicinesContext; prescriptions: PrescriptionsContext; rtpm: RtpmContext; mfa: MfaContext },
): PortalContext {
  return { ...features, forms: { db: deps.database, clock: deps.clock, key: deps.secretKey } };
}

/** The signed-in prescriber, and whether (and if not, why not) they can prescribe. */
export interface PrescriberView {
  name: string;
  canPrescribe: boolean;
  unmet: Array<{ condition: string; remedy: string }>;
}

export function viewOfPrescriber(profile: PrescriberProfile): PrescriberView {
  const name = [profile.title, profile.given_name, profile.family_name].filter(Boolean).join(' ');
  return { name, canPrescribe: profile.unmetConditions.length === 0, unmet: profile.unmetConditions.map((condition) => ({ condition, remedy: remedyOf(condition) })) };
}

export interface PatientView {
  patientId: string;
  name: string;
  dateOfBirth: string;
  partnerPatientId: string;
}

export function viewOfPatientRow(row: Pick<PatientRow, 'id' | 'given_name' | 'family_name' | 'date_of_birth' | 'partner_patient_id'>): PatientView {
  return { patientId: row.id, name: `${row.given_name} ${row.family_name}`, dateOfBirth: row.date_of_birth, partnerPatientId: row.partner_patient_id };
}

/** The session's reserved values that are set, for the read-only display. */
export function shownReserved(reserved: EventMetadata): Array<{ name: string; value: string }> {
  return Object.entries(reserved).flatMap(([name, value]) => (value === null ? [] : [{ name, value }]));
}

export interface DashboardPage {
  prescriber: PrescriberView;
  reserved: Array<{ name: string; value: string }>;
  /** The patients a lookup by partner_patient_id found (none: nothing was looked up, or nothing found). */
  found: PatientView[];
  /** What was looked up, when it found nothing. */
  notFound: string | undefined;
  /** The role has an approval queue (drafts it prepares, or approves). */
  offersApprovalQueue: boolean;
}

async function dashboardOf(ctx: PortalContext, session: PortalSession, lookup?: { partnerPatientId: string; found: PatientRow[] }): Promise<DashboardPage> {
  const profile = await readPrescriberProfile(ctx.users, session, session.userId);
  return {
    prescriber: viewOfPrescriber(profile),
    reserved: shownReserved(session.reserved),
    found: (lookup?.found ?? []).map(viewOfPatientRow),
    notFound: lookup && lookup.found.length === 0 ? lookup.partnerPatientId : undefined,
    offersApprovalQueue: holdsCapability(session.roles, 'portal:draft_queue'),
  };
}

export function readDashboard(ctx: PortalContext, session: PortalSession): Promise<DashboardPage> {
  return dashboardOf(ctx, session);
}

/** Finds a patient by the partner's own id for them: straight to the one found, else the dashboard saying what it found. */
export async function findPatientFromDashboard(
  ctx: PortalContext,
  session: PortalSession,
  submitted: SubmittedBody,
): Promise<{ kind: 'patient'; patientId: string } | { kind: 'dashboard'; page: DashboardPage }> {
  const sent = bodyFields(submitted).partner_patient_id;
  const partnerPatientId = typeof sent === 'string' ? sent.trim().slice(0, 150) : '';
  const found = partnerPatientId === '' ? [] : await findPatientsOfPartnerId(ctx.patients, session.organizationId, partnerPatientId);
  if (found.length === 1) return { kind: 'patient', patientId: found[0]!.id };
  return { kind: 'dashboard', page: await dashboardOf(ctx, session, { partnerPatientId, found }) };
}

export interface PatientPageRow {
  /** How the prescription is addressed: its SCID, or erx's id where it has none. */
  scid: string;
  /** What the list shows for it: the SCID, or why there is none (paper, or not yet accepted by the PDS). */
  label: string;
  status: string;
  medicine: string;
  createdDate: string;
}

/** A prescription without a SCID is named for what it is, never by an id that could pass for a SCID. */
function labelOf(p: Prescription): string {
  if (p.scid !== undefined) return p.scid;
  return p.prescription_type === 'PAPER' && p.status !== 'Pending' ? 'Paper (no SCID)' : 'No SCID yet';
}

export interface PatientPage {
  patient: PatientView;
  /** False for a role that sees patients but no prescription (receptionist, member): none listed. */
  showsPrescriptions: boolean;
  /** Whether the page offers a new prescription (the role may prescribe). */
  offersNewPrescription: boolean;
  /** Whether the page offers to prepare a prescription for a prescriber's approval (a queue manager). */
  offersDraft: boolean;
  /** Why no prescription can be written for the organization yet (its practice address or phone is missing); undefined: nothing stops it. */
  practiceGap: string | undefined;
  prescriptions: PatientPageRow[];
  /** The next page's lastKey; null on the last page. */
  nextKey: string | null;
}

/** Prescriptions per page of the patient page. */
const PATIENT_PAGE_SIZE = 50;

/** The patient (404 outside the organization) and their prescriptions, newest first. */
export async function readPatientPage(ctx: PortalContext, session: PortalSession, patientId: string, lastKey: string | undefined): Promise<PatientPage> {
  const row = await showPatient(ctx.patients, session.organizationId, patientId);
  const offersNewPrescription = holdsCapability(session.roles, 'portal:prescribe');
  const offersDraft = holdsCapability(session.roles, 'portal:prepare_draft');
  const practiceGap = offersNewPrescription || offersDraft ? (await readPracticeGaps(ctx.prescriptions, session.organizationId)).message : undefined;
  if (!holdsCapability(session.roles, 'portal:read_prescriptions')) {
    return { patient: viewOfPatientRow(row), showsPrescriptions: false, offersNewPrescription, offersDraft, practiceGap, prescriptions: [], nextKey: null };
  }
  const query = { value: { limit: String(PATIENT_PAGE_SIZE), ...(lastKey ? { lastKey } : {}) }, issues: [] };
  const { data, pagination } = await listPatientPrescriptions(ctx.prescriptions, session, { userId: session.userId, patientId: row.id }, query);
  return {
    patient: viewOfPatientRow(row),
    showsPrescriptions: true,
    offersNewPrescription,
    offersDraft,
    practiceGap,
    prescriptions: data.prescriptions.map((p) => ({ scid: referenceOf(p), label: labelOf(p), status: p.status, medicine: describeMedicine(p), createdDate: p.created_date })),
    nextKey: pagination.lastKey,
  };
}
