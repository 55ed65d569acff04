// The full-page portal's own pages: the dashboard (who is signed in, whether they can
// prescribe and what to fix if not, finding a patient by the partner's id) and a patient with
// their prescriptions.
import { Type } from '@sinclair/typebox';
import { submittedBody } from '../platform/http/body-validation.ts';
import type { RouteModule } from '../route-module.ts';
import { layoutOf, portalPaths } from './page-layout.ts';
import { sessionOf } from './portal-context.ts';
import { findPatientFromDashboard, readDashboard, readPatientPage, type PortalContext } from './portal-service.ts';

const PatientParams = Type.Object({ patient_id: Type.String() });

export const dashboardPages: RouteModule<PortalContext> = (app, portal) => {
  app.route({
    method: 'GET',
    url: '/dashboard',
    config: { auth: { kind: 'session', capability: 'portal:patients' } },
    schema: { hide: true },
    handler: async (request, reply) => {
      const page = await readDashboard(portal, sessionOf(request));
      return reply.view('portal-dashboard', { ...layoutOf(reply, 'dashboard', 'Dashboard'), page });
    },
  });

  app.route({
    method: 'POST',
    url: '/dashboard/find-patient',
    config: { auth: { kind: 'session', capability: 'portal:patients' } },
    attachValidation: true,
    schema: { hide: true, body: Type.Object({ partner_patient_id: Type.Optional(Type.String({ maxLength: 150 })) }) },
    handler: async (request, reply) => {
      const outcome = await findPatientFromDashboard(portal, sessionOf(request), submittedBody(request));
      if (outcome.kind === 'patient') return reply.redirect(portalPaths('dashboard', outcome.patientId).patient, 303);
      return reply.view('portal-dashboard', { ...layoutOf(reply, 'dashboard', 'Dashboard'), page: outcome.page });
    },
  });

  app.route({
    method: 'GET',
    url: '/dashboard/patients/:patient_id',
    config: { auth: { kind: 'session', capability: 'portal:patients' } },
    schema: { hide: true, params: PatientParams, querystring: Type.Object({ lastKey: Type.Optional(Type.String({ maxLength: 500 })) }) },
    handler: async (request, reply) => {
      const page = await readPatientPage(portal, sessionOf(request), request.params.patient_id, request.query.lastKey);
      return reply.view('portal-patient', { ...layoutOf(reply, 'dashboard', page.patient.name), page, paths: portalPaths('dashboard', page.patient.patientId) });
    },
  });
};
