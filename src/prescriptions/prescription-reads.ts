// The read calls: a patient's prescriptions, a page at a time, newest first (the vendor's
// "get patient prescriptions"), one prescription by SCID, and what a token page shows. The
// query is checked before anything is looked up (400), then the path user and the patient
// (404), as on every route. Each read that answers is noted in the audit trail (written before
// the answer leaves, or the request fails), whichever surface asked: API, portal or token page.
import type { PatientRow } from '../patients/index.ts';
import { ApiError, invalidRequest, notFound, type ValidationIssue } from '../platform/http/api-error.ts';
import { latestTokenMessageOf, type TokenMessageView } from '../token-delivery/index.ts';
import { decodeLastKey, encodeLastKey, PAGE_LIMITS, readPageLimit, type PagePosition } from './prescription-paging.ts';
import { legalMetadataOf, summaryOfPatient, viewOfPrescription } from './prescription-view.ts';
import { storedFormOfTokenPageKey } from './token-page-keys.ts';
import { readPrescriptionLegalContent } from './prescription-legal-content.ts';
import { renderPrescriptionPdf } from './prescription-pdf.ts';
import type { LegalMetadata, ListQuery, Pagination, PrescriptionData, PrescriptionListData } from './prescriptions-schemas.ts';
import { readScid, requirePrescriberAndPatient, type PatientPath, type PrescribingCaller, type PrescriptionsContext } from './prescriptions-service.ts';
import { countPrescriptionsThrough, findPrescriptionByToken, findPrescriptionOfPatient, listPrescriptionsOfPatient, type PrescriptionRow } from './prescriptions-store.ts';

/** The patient's prescription with this SCID; 404 naming both when there is none (another patient's, another organization's). */
export async function requirePrescription(ctx: PrescriptionsContext, patient: Pick<PatientRow, 'id' | 'organization_id'>, scid: string): Promise<PrescriptionRow> {
  const row = await findPrescriptionOfPatient(ctx.db, patient.organization_id, patient.id, scid);
  if (!row) throw notFound(`No prescription with SCID ${scid} for patient ${patient.id}`);
  return row;
}

const INVALID_QUERY = 'Invalid query parameters provided';

/** limit and lastKey, or 400 saying which is wrong. */
function readListQuery(patientId: string, query: ListQuery, schemaIssues: ValidationIssue[]): { limit: number; after: PagePosition | undefined } {
  if (schemaIssues.length > 0) throw invalidRequest(`${INVALID_QUERY}: ${schemaIssues.map((issue) => `${issue.field} ${issue.message}`).join('; ')}`);
  const limit = readPageLimit(query.limit);
  if (limit === undefined) throw invalidRequest(`${INVALID_QUERY}: limit must be a whole number from 1 to ${PAGE_LIMITS.max}`);
  if (query.lastKey === undefined) return { limit, after: undefined };
  const after = decodeLastKey(patientId.toLowerCase(), query.lastKey);
  if (!after) throw invalidRequest(`${INVALID_QUERY}: lastKey is not one this list gave (pass pagination.lastKey of the previous page unchanged)`);
  return { limit, after };
}

export async function listPatientPrescriptions(
  ctx: PrescriptionsContext,
  caller: PrescribingCaller,
  ids: PatientPath,
  query: { value: ListQuery; issues: ValidationIssue[] },
): Promise<{ data: PrescriptionListData; pagination: Pagination }> {
  const { limit, after } = readListQuery(ids.patientId, query.value, query.issues);
  const { prescriber, patient } = await requirePrescriberAndPatient(ctx, caller, ids);
  // One more than the page: whether it is there says whether a next page exists.
  const scope = { organizationId: patient.organization_id, patientId: patient.id };
  const rows = await listPrescriptionsOfPatient(ctx.db, scope, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasNext = rows.length > limit && last !== undefined;
  const offset = after === undefined ? 0 : (after.offset ?? (await countPrescriptionsThrough(ctx.db, scope, after)));
  await ctx.audit.noteAccess({ action: 'prescription.list', organizationId: patient.organization_id, patientId: patient.id, detail: { count: page.length } });
  return {
    data: {
      patient: summaryOfPatient(patient),
      prescriber: { given_name: prescriber.given_name, family_name: prescriber.family_name, user_id: prescriber.user_id },
      prescriptions: page.map((row) => viewOfPrescription(row, ctx)),
    },
    pagination: { count: page.length, hasNext, limit, offset, lastKey: hasNext ? encodeLastKey(patient.id, { createdAt: last.created_at, id: last.id, offset: offset + page.length }) : null },
  };
}

async function requirePathPrescription(ctx: PrescriptionsContext, caller: PrescribingCaller, ids: PatientPath & { scid: string }) {
  const scid = readScid(ids.scid);
  const { patient } = await requirePrescriberAndPatient(ctx, caller, ids);
  return { patient, row: await requirePrescription(ctx, patient, scid) };
}

/** The prescription and a summary of its patient; noted as read. */
export async function readPatientPrescription(ctx: PrescriptionsContext, caller: PrescribingCaller, ids: PatientPath & { scid: string }): Promise<PrescriptionData> {
  const { patient, row } = await requirePathPrescription(ctx, caller, ids);
  await ctx.audit.noteAccess({ action: 'prescription.read', organizationId: patient.organization_id, patientId: patient.id, scid: row.scid ?? row.id });
  return { patient: summaryOfPatient(patient), prescription: viewOfPrescription(row, ctx) };
}

/** As readPatientPrescription, with how its token's latest message went (the portal's prescription page shows a failed send). */
export async function readPatientPrescriptionWithMessage(
  ctx: PrescriptionsContext,
  caller: PrescribingCaller,
  ids: PatientPath & { scid: string },
): Promise<PrescriptionData & { tokenMessage: TokenMessageView | undefined }> {
  const { patient, row } = await requirePathPrescription(ctx, caller, ids);
  await ctx.audit.noteAccess({ action: 'prescription.read', organizationId: patient.organization_id, patientId: patient.id, scid: row.scid ?? row.id });
  const tokenMessage = await latestTokenMessageOf(ctx.db, ctx.secretKey, row.id);
  return { patient: summaryOfPatient(patient), prescription: viewOfPrescription(row, ctx), tokenMessage };
}

/** Why a paper prescription in these statuses has no PDF: it is not (or not yet) a script. */
export const UNPRINTABLE_PAPER: Readonly<Partial<Record<string, string>>> = {
  Pending:
    'is being sent to the Prescription Delivery Service: its PDF is printed once the PDS has accepted it (with its SCID as a barcode), or once you write it on paper instead (without a SCID)',
  Error: 'was not issued (the Prescription Delivery Service did not take it): it has no PDF; write the prescription again',
};

/**
 * The PDF of the path's paper prescription (404 for an electronic one: its token is the
 * prescription, and a printout of it would be a second one; 409 while it waits for the PDS or
 * after the PDS refused it), noted as printed.
 */
export async function printPaperPrescription(ctx: PrescriptionsContext, caller: PrescribingCaller, ids: PatientPath & { scid: string }): Promise<{ scid: string; pdf: Uint8Array }> {
  const { patient, row } = await requirePathPrescription(ctx, caller, ids);
  if (row.prescription_type !== 'PAPER') throw notFound(`Prescription ${row.scid ?? row.id} is electronic: its token is the prescription, and it has no paper form`);
  const unprintable = UNPRINTABLE_PAPER[row.status];
  if (unprintable) throw new ApiError('CONFLICT', `Prescription ${row.id} ${unprintable}`);
  await ctx.audit.noteAccess({ action: 'prescription.print', organizationId: patient.organization_id, patientId: patient.id, scid: row.scid ?? row.id });
  return { scid: row.scid ?? row.id, pdf: await renderPrescriptionPdf(readPrescriptionLegalContent(ctx, row, patient)) };
}

/**
 * The canonical SCID of the path's prescription, or the 400/404 a read would answer. Shows
 * nothing of the prescription, so nothing is noted: the portal checks a change's target with
 * it before the change (which records its own entry).
 */
export async function requirePatientPrescriptionScid(ctx: PrescriptionsContext, caller: PrescribingCaller, ids: PatientPath & { scid: string }): Promise<string> {
  const { row } = await requirePathPrescription(ctx, caller, ids);
  return row.scid ?? row.id;
}

/** What a token page shows: the SCID and the medicine, never the patient. */
export interface TokenPage {
  scid: string;
  status: string;
  item_name: string;
  item_strength: string | null;
  item_form: string | null;
  quantity: string;
  repeats: string;
  /** What the script states of its software, itself and its writers (s41A). */
  legal: LegalMetadata;
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export async function findTokenPage(ctx: PrescriptionsContext, token: string): Promise<TokenPage> {
  const row = TOKEN_PATTERN.test(token) ? await findPrescriptionByToken(ctx.db, storedFormOfTokenPageKey(token)) : undefined;
  // A paper prescription has no token, and one the PDS has not accepted has none yet: its address (derived like any other) opens nothing.
  if (!row || row.prescription_type !== 'ELECTRONIC' || row.scid === null) throw notFound('There is no prescription token at this address');
  // Anyone with the address may open it: the entry's actor is anonymous, with the client's address (the scope's); never the token.
  await ctx.audit.noteAccess({ action: 'prescription.token_page', organizationId: row.organization_id, patientId: row.patient_id, scid: row.scid });
  const { scid, status, item_name, item_strength, item_form, quantity } = row;
  return { scid, status, item_name, item_strength, item_form, quantity, repeats: row.number_of_repeats_authorised, legal: legalMetadataOf(row, ctx.secretKey) };
}
