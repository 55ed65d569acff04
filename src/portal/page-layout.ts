// What every portal page's template is given besides its own model: the frame it is shown in
// (full page with navigation, or embedded in a partner's iframe without), the session's CSRF
// token for its forms, the addresses of the pages it links to, and the fixed wording of
// labels and actions (the accessible names partners' tests rely on).
import type { FastifyReply } from 'fastify';
import { portalActionOf, PRESCRIPTION_CHANGES, type PrescriptionChange } from '../prescriptions/index.ts';
import { COUNT_HINTS, FIELD_LABELS } from './prescription-form.ts';
import { CHECKBOX_FIELDS, DETAIL_HINTS, DETAIL_TEXT_LIMITS, SCHEDULE_CHOICES, TICKED } from './prescription-form-fields.ts';

/** What the new-prescription template lays its detail fields out from. */
const FORM_LAYOUT = { checkboxes: CHECKBOX_FIELDS, textLimits: DETAIL_TEXT_LIMITS, schedules: SCHEDULE_CHOICES, ticked: TICKED };

/** `dashboard`: the full portal, with navigation. `embed`: the same pages without it, for an iframe. */
export type PortalFrame = 'dashboard' | 'embed';
export const PORTAL_FRAMES: readonly PortalFrame[] = ['dashboard', 'embed'];

/** Each change's button, confirmation text and tone, from the lifecycle table. */
export const PORTAL_ACTIONS = Object.fromEntries(PRESCRIPTION_CHANGES.map((action) => [action, portalActionOf(action)])) as Readonly<
  Record<PrescriptionChange, ReturnType<typeof portalActionOf>>
>;

/** The pages of one patient, in one frame. */
export function portalPaths(frame: PortalFrame, patientId: string) {
  const id = encodeURIComponent(patientId);
  const base = `/${frame}/patients/${id}/prescriptions`;
  return {
    patient: `/dashboard/patients/${id}`,
    form: base,
    /** A queue manager's form: the new prescription, prepared as a draft for a prescriber (approval-pages.ts). */
    draftForm: `/${frame}/patients/${id}/prescription-drafts`,
    prescription: (scid: string) => `${base}/${encodeURIComponent(scid)}`,
    change: (scid: string, action: PrescriptionChange) => `${base}/${encodeURIComponent(scid)}/${action}`,
    /** A paper prescription's PDF (A5, for plain paper). */
    pdf: (scid: string) => `${base}/${encodeURIComponent(scid)}/pdf`,
    /** A Pending prescription written on paper instead (its PDS submission withdrawn). */
    paperInstead: (scid: string) => `${base}/${encodeURIComponent(scid)}/paper`,
  };
}
export type PortalPaths = ReturnType<typeof portalPaths>;

export function layoutOf(reply: FastifyReply, frame: PortalFrame, title: string) {
  return {
    frame,
    title,
    csrfToken: reply.generateCsrf(),
    labels: FIELD_LABELS,
    hints: { ...COUNT_HINTS, ...DETAIL_HINTS },
    form: FORM_LAYOUT,
    actions: PORTAL_ACTIONS,
  };
}
