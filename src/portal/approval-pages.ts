// The approval queue's pages, each in both frames (/dashboard/... with navigation, /embed/...
// without, for a partner's iframe): the draft form of a patient (a queue manager's
// new-prescription form: GET prefilled, POST stores the draft), the queue
// (/{frame}/prescriptions/approval), one draft, and its approval and decline.
import { Type } from '@sinclair/typebox';
import { submittedBody } from '../platform/http/body-validation.ts';
import type { RouteModule } from '../route-module.ts';
import type { Capability } from '../auth/index.ts';
import { layoutOf, PORTAL_FRAMES, portalPaths, type PortalFrame } from './page-layout.ts';
import { sessionOf } from './portal-context.ts';
import { DecisionForm, DraftFormBody, readApprovalQueue, readDraftForm, readDraftPage, submitApproval, submitDecline, submitDraftForm } from './portal-drafts.ts';
import type { PortalContext } from './portal-service.ts';

const session = (capability: Capability) => ({ auth: { kind: 'session' as const, capability } });
const PatientParams = Type.Object({ patient_id: Type.String() });
const DraftParams = Type.Object({ draft_id: Type.String({ maxLength: 100 }) });

/** The queue's pages in one frame. */
export function approvalPaths(frame: PortalFrame) {
  const queue = `/${frame}/prescriptions/approval`;
  return {
    queue,
    draft: (draftId: string) => `${queue}/${encodeURIComponent(draftId)}`,
    approve: (draftId: string) => `${queue}/${encodeURIComponent(draftId)}/approve`,
    decline: (draftId: string) => `${queue}/${encodeURIComponent(draftId)}/decline`,
    form: (patientId: string) => `/${frame}/patients/${encodeURIComponent(patientId)}/prescription-drafts`,
  };
}

/** The banner a draft's page shows after the action that led to it (only these words). */
function noticeOf(query: { prepared?: string; declined?: string }): string | undefined {
  if (query.prepared !== undefined) return 'Draft prepared: it waits for its prescriber.';
  if (query.declined !== undefined) return 'Draft declined.';
  return undefined;
}

export const approvalPages: RouteModule<PortalContext> = (app, portal) => {
  for (const frame of PORTAL_FRAMES) {
    const paths = approvalPaths(frame);
    const formUrl = `/${frame}/patients/:patient_id/prescription-drafts`;
    const draftView = (patientId: string) => ({ ...portalPaths(frame, patientId), form: paths.form(patientId) });

    app.route({
      method: 'GET',
      url: formUrl,
      config: session('portal:prepare_draft'),
      schema: { hide: true, params: PatientParams },
      handler: async (request, reply) => {
        const read = await readDraftForm(portal, sessionOf(request), request.params.patient_id, request.query as Record<string, unknown>);
        if (read.kind === 'issued') {
          const query = new URLSearchParams(request.url.split('?').slice(1).join('?'));
          query.set('form_id', read.formId);
          return reply.redirect(`${paths.form(read.patientId)}?${query.toString()}`, 303);
        }
        return reply.view('new-prescription', { ...layoutOf(reply, frame, 'Prepare a prescription for approval'), page: read.page, paths: draftView(read.page.patient.patientId) });
      },
    });

    app.route({
      method: 'POST',
      url: formUrl,
      config: session('portal:prepare_draft'),
      attachValidation: true,
      schema: { hide: true, params: PatientParams, body: DraftFormBody },
      handler: async (request, reply) => {
        const outcome = await submitDraftForm(portal, sessionOf(request), request.params.patient_id, submittedBody(request));
        if (outcome.kind === 'prepared') return reply.redirect(`${paths.draft(outcome.draftId)}?prepared=1`, 303);
        const page = outcome.page;
        return reply.status(outcome.status).view('new-prescription', { ...layoutOf(reply, frame, 'Prepare a prescription for approval'), page, paths: draftView(page.patient.patientId) });
      },
    });

    app.route({
      method: 'GET',
      url: paths.queue,
      config: session('portal:draft_queue'),
      schema: { hide: true },
      handler: async (request, reply) => {
        const page = await readApprovalQueue(portal, sessionOf(request));
        return reply.view('approval-queue', { ...layoutOf(reply, frame, 'Approval queue'), page, approval: paths });
      },
    });

    app.route({
      method: 'GET',
      url: `${paths.queue}/:draft_id`,
      config: session('portal:draft_queue'),
      schema: { hide: true, params: DraftParams, querystring: Type.Object({ prepared: Type.Optional(Type.String()), declined: Type.Optional(Type.String()) }) },
      handler: async (request, reply) => {
        const page = await readDraftPage(portal, sessionOf(request), request.params.draft_id);
        return reply.view('prescription-draft', { ...layoutOf(reply, frame, 'Prescription draft'), page, approval: paths, paths: portalPaths(frame, page.draft.patient.patientId), notice: noticeOf(request.query) });
      },
    });

    app.route({
      method: 'POST',
      url: `${paths.queue}/:draft_id/approve`,
      // Approving signs a prescription: a factor presented within 5 minutes (a step-up).
      config: { auth: { kind: 'session' as const, capability: 'portal:approve_draft' as const, factor: 'fresh' as const } },
      attachValidation: true,
      schema: { hide: true, params: DraftParams, body: DecisionForm },
      handler: async (request, reply) => {
        const outcome = await submitApproval(portal, sessionOf(request), request.params.draft_id, submittedBody(request));
        if (outcome.kind === 'approved') return reply.redirect(`${portalPaths(frame, outcome.patientId).prescription(outcome.scid)}?created=1`, 303);
        if (outcome.kind === 'declined') return reply.redirect(`${paths.draft(outcome.draftId)}?declined=1`, 303);
        const page = outcome.page;
        return reply.status(outcome.status).view('prescription-draft', { ...layoutOf(reply, frame, 'Prescription draft'), page, approval: paths, paths: portalPaths(frame, page.draft.patient.patientId) });
      },
    });

    app.route({
      method: 'POST',
      url: `${paths.queue}/:draft_id/decline`,
      config: session('portal:approve_draft'),
      attachValidation: true,
      schema: { hide: true, params: DraftParams, body: DecisionForm },
      handler: async (request, reply) => {
        const outcome = await submitDecline(portal, sessionOf(request), request.params.draft_id, submittedBody(request));
        if (outcome.kind === 'declined') return reply.redirect(`${paths.draft(outcome.draftId)}?declined=1`, 303);
        if (outcome.kind === 'approved') return reply.redirect(`${portalPaths(frame, outcome.patientId).prescription(outcome.scid)}?created=1`, 303);
        const page = outcome.page;
        return reply.status(outcome.status).view('prescription-draft', { ...layoutOf(reply, frame, 'Prescription draft'), page, approval: paths, paths: portalPaths(frame, page.draft.patient.patientId) });
      },
    });
  }
};
