// What every portal page's template is given besides its own model: the frame it is shown in
// (full page with navigation, or embedded in a partner's iframe without), the session's CSRF
// token for its forms, the addresses of the pages it links to, and the fixed wording of
// labels and actions (the accessible names partners' tests rely on).
import type { FastifyReply } from 'fastify';
import type { PrescriptionChange } from '../prescriptions/index.ts';
import { COUNT_HINTS, FIELD_LABELS } from './prescription-form.ts';

/** `dashboard`: the full portal, with navigation. `embed`: the same pages without it, for an iframe. */
export type PortalFrame = 'dashboard' | 'embed';
export const PORTAL_FRAMES: readonly PortalFrame[] = ['dashboard', 'embed'];

export const ACTION_LABELS: Readonly<Record<PrescriptionChange, string>> = {
  cease: 'Cease prescription',
  cancel: 'Cancel prescription',
  reissue: 'Reissue prescription',
};

const ACTION_EFFECTS: Readonly<Record<PrescriptionChange, string>> = {
  cease: 'Ceasing stops the prescription (for example, the medicine is no longer needed): it can no longer be dispensed.',
  cancel: 'Cancelling withdraws the prescription (for example, it was made in error): it can no longer be dispensed.',
  reissue: 'Reissuing sends the token again, to the destination you choose; the SCID stays the same.',
};

/** The pages of one patient, in one frame. */
export function portalPaths(frame: PortalFrame, patientId: string) {
  const id = encodeURIComponent(patientId);
  const base = `/${frame}/patients/${id}/prescriptions`;
  return {
    patient: `/dashboard/patients/${id}`,
    form: base,
    prescription: (scid: string) => `${base}/${encodeURIComponent(scid)}`,
    change: (scid: string, action: PrescriptionChange) => `${base}/${encodeURIComponent(scid)}/${action}`,
  };
}
export type PortalPaths = ReturnType<typeof portalPaths>;

export function layoutOf(reply: FastifyReply, frame: PortalFrame, title: string) {
  return {
    frame,
    title,
    csrfToken: reply.generateCsrf(),
    labels: FIELD_LABELS,
    hints: COUNT_HINTS,
    actionLabels: ACTION_LABELS,
    actionEffects: ACTION_EFFECTS,
  };
}
