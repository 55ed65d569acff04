// Prescribing pages, each in both frames: /dashboard/patients/{patient_id}/prescriptions (with
// navigation) and /embed/patients/{patient_id}/prescriptions (without, for a partner's
// iframe). The form (GET, prefilled from its query; POST creates, then redirects to the
// prescription's page, its confirmation), the prescription's page (view and manage), and
// each change of the lifecycle table (cease, cancel, reissue), shown for confirmation first.
import { Type } from '@sinclair/typebox';
import { submittedBody } from '../platform/http/body-validation.ts';
import { PRESCRIPTION_CHANGES, TRANSITIONS } from '../prescriptions/index.ts';
import type { Capability, SessionRedirect } from '../auth/index.ts';
import type { RouteModule } from '../route-module.ts';
import type { PortalContext } from './portal-service.ts';
import { layoutOf, PORTAL_FRAMES, portalPaths, type PortalFrame } from './page-layout.ts';
import { sessionOf } from './portal-context.ts';
import { readPrescriptionForm, submitPrescriptionForm } from './portal-prescribing.ts';
import { CHANGE_CAPABILITIES, printPrescription, readPrescriptionPage, submitPaperInstead, submitPrescriptionChange } from './portal-prescription-page.ts';
import { PrescriptionFormBody } from './prescription-form.ts';

const session = (capability: Capability) => ({ auth: { kind: 'session' as const, capability } });
const PatientParams = Type.Object({ patient_id: Type.String() });
const PrescriptionParams = Type.Object({ patient_id: Type.String(), scid: Type.String() });
const ChangeForm = Type.Object({
  confirm: Type.Optional(Type.String({ maxLength: 10 })),
  send_to: Type.Optional(Type.String({ maxLength: 200 })),
  form_id: Type.Optional(Type.String({ maxLength: 100 })),
});

/** The banner a prescription page shows after the action that led to it (only these words, never the query's). */
function noticeOf(query: { created?: string; done?: string }): string | undefined {
  if (query.created !== undefined) return 'Prescription created.';
  if (query.done === 'paper') return 'Written on paper instead: it will not be sent electronically. Download the PDF, print it and sign it.';
  const action = PRESCRIPTION_CHANGES.find((change) => change === query.done);
  return action ? `Prescription ${TRANSITIONS[action].verb}.` : undefined;
}

/** The form's own address with `formId` as its form_id, every other parameter of the request's query (the prefill) kept as sent. */
function addressWithFormId(form: string, requestUrl: string, formId: string): string {
  const query = new URLSearchParams(requestUrl.split('?').slice(1).join('?'));
  query.delete('form_id');
  query.append('form_id', formId);
  return `${form}?${query.toString()}`;
}

/**
 * The draft form of the form's patient, with the form's query (the partner's prefill and
 * reserved values) but not its form_id: a queue manager, who prepares drafts but cannot
 * prescribe, lands there from a partner's link to the new-prescription form (the vendor's
 * iframe links name that form only).
 */
function draftFormInstead(frame: PortalFrame): SessionRedirect {
  return {
    capability: 'portal:prepare_draft',
    to: (request) => {
      const { patient_id: patientId } = request.params as { patient_id: string };
      // The query's parameters as sent (not re-encoded), but the form's one-time id.
      const search = request.url.split('?').slice(1).join('?').split('&').filter((part) => part !== '' && !part.startsWith('form_id=')).join('&');
      return `${portalPaths(frame, patientId).draftForm}${search ? `?${search}` : ''}`;
    },
  };
}

export const prescriptionPages: RouteModule<PortalContext> = (app, portal) => {
  for (const frame of PORTAL_FRAMES) {
    const base = `/${frame}/patients/:patient_id/prescriptions`;

    app.route({
      method: 'GET',
      url: base,
      config: { auth: { ...session('portal:prescribe').auth, instead: draftFormInstead(frame) } },
      schema: { hide: true, params: PatientParams },
      handler: async (request, reply) => {
        const read = await readPrescriptionForm(portal, sessionOf(request), request.params.patient_id, request.query as Record<string, unknown>);
        if (read.kind === 'issued') return reply.redirect(addressWithFormId(portalPaths(frame, read.patientId).form, request.url, read.formId), 303);
        const { page } = read;
        return reply.view('new-prescription', { ...layoutOf(reply, frame, 'New prescription'), page, paths: portalPaths(frame, page.patient.patientId) });
      },
    });

    app.route({
      method: 'POST',
      url: base,
      config: session('portal:prescribe'),
      attachValidation: true,
      schema: { hide: true, params: PatientParams, body: PrescriptionFormBody },
      handler: async (request, reply) => {
        const outcome = await submitPrescriptionForm(portal, sessionOf(request), request.params.patient_id, submittedBody(request));
        if (outcome.kind === 'created') return reply.redirect(`${portalPaths(frame, request.params.patient_id.toLowerCase()).prescription(outcome.scid)}?created=1`, 303);
        const paths = portalPaths(frame, outcome.page.patient.patientId);
        return reply.status(outcome.status).view('new-prescription', { ...layoutOf(reply, frame, 'New prescription'), page: outcome.page, paths });
      },
    });

    app.route({
      method: 'GET',
      url: `${base}/:scid`,
      config: session('portal:read_prescriptions'),
      schema: { hide: true, params: PrescriptionParams, querystring: Type.Object({ created: Type.Optional(Type.String()), done: Type.Optional(Type.String()) }) },
      handler: async (request, reply) => {
        const page = await readPrescriptionPage(portal, sessionOf(request), request.params.patient_id, request.params.scid);
        const paths = portalPaths(frame, page.patient.patientId);
        return reply.view('prescription-page', { ...layoutOf(reply, frame, `Prescription ${page.scid}`), page, paths, notice: noticeOf(request.query) });
      },
    });

    app.route({
      method: 'GET',
      url: `${base}/:scid/pdf`,
      config: session('portal:read_prescriptions'),
      schema: { hide: true, params: PrescriptionParams },
      handler: async (request, reply) => {
        const printed = await printPrescription(portal, sessionOf(request), request.params.patient_id, request.params.scid);
        // The patient's identifiers are in it: kept out of caches.
        reply.headers({ 'content-type': 'application/pdf', 'content-disposition': `attachment; filename="prescription-${printed.scid}.pdf"`, 'cache-control': 'no-store' });
        return reply.send(Buffer.from(printed.pdf));
      },
    });

    // Paper instead of a Pending electronic prescription: a step-up, as it makes a script to print and sign.
    app.route({
      method: 'POST',
      url: `${base}/:scid/paper`,
      config: { auth: { kind: 'session', capability: 'portal:prescribe', factor: 'fresh' } },
      schema: { hide: true, params: PrescriptionParams },
      handler: async (request, reply) => {
        const { patient_id: patientId, scid } = request.params;
        const outcome = await submitPaperInstead(portal, sessionOf(request), { patientId, scid });
        if (outcome.kind === 'done') return reply.redirect(`${portalPaths(frame, patientId.toLowerCase()).prescription(outcome.reference)}?done=paper`, 303);
        const paths = portalPaths(frame, outcome.page.patient.patientId);
        return reply.status(409).view('prescription-page', { ...layoutOf(reply, frame, `Prescription ${outcome.page.scid}`), page: outcome.page, paths, refused: outcome.refused });
      },
    });

    for (const action of PRESCRIPTION_CHANGES) {
      app.route({
        method: 'POST',
        url: `${base}/:scid/${action}`,
        config: session(CHANGE_CAPABILITIES[action]),
        attachValidation: true,
        schema: { hide: true, params: PrescriptionParams, body: ChangeForm },
        handler: async (request, reply) => {
          const { patient_id: patientId, scid } = request.params;
          const outcome = await submitPrescriptionChange(portal, sessionOf(request), { patientId, scid }, action, submittedBody(request));
          if (outcome.kind === 'done') return reply.redirect(`${portalPaths(frame, patientId.toLowerCase()).prescription(scid.toUpperCase())}?done=${action}`, 303);
          const paths = portalPaths(frame, outcome.confirmation.prescription.patient.patientId);
          return reply.status(outcome.status).view('prescription-change', { ...layoutOf(reply, frame, TRANSITIONS[action].portal.label), confirmation: outcome.confirmation, paths });
        },
      });
    }
  }
};
