// The read calls of prescriptions, under a patient of the acting user's organization: the
// list (a page at a time, with pagination beside data) and one prescription by SCID.
import { principalOf } from '../auth/index.ts';
import { schemaIssuesOf } from '../platform/http/body-validation.ts';
import { errorResponses } from '../platform/http/envelope.ts';
import type { RouteModule } from '../route-module.ts';
import type { PrescriptionsContext } from './prescriptions-service.ts';
import { listPatientPrescriptions, readPatientPrescription } from './prescription-reads.ts';
import { ListQuery, PrescriptionDataResponse, PrescriptionListResponse, PrescriptionParams, PrescriptionsParams } from './prescriptions-schemas.ts';

export const PRESCRIPTIONS_URL = '/v1/organizations/:organization_id/users/:user_id/patients/:patient_id/prescriptions';

export const prescriptionsRoutes: RouteModule<PrescriptionsContext> = (app, prescriptions) => {
  app.route({
    method: 'GET',
    url: PRESCRIPTIONS_URL,
    config: { auth: { kind: 'bearer', scopes: ['read:patient_prescription'] } },
    // A bad limit or lastKey is a 400 (the service says which), not a schema 422.
    attachValidation: true,
    schema: {
      summary: "A patient's prescriptions, newest first, a page at a time (limit 1-50, default 20; lastKey from the previous page)",
      tags: ['prescriptions'],
      params: PrescriptionsParams,
      querystring: ListQuery,
      response: { 200: PrescriptionListResponse, ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const { user_id: userId, patient_id: patientId } = request.params;
      const query = { value: request.query, issues: schemaIssuesOf(request) };
      const { data, pagination } = await listPatientPrescriptions(prescriptions, principalOf(request), { userId, patientId }, query);
      return reply.successWith(200, 'Prescriptions retrieved successfully', data, { pagination });
    },
  });

  app.route({
    method: 'GET',
    url: `${PRESCRIPTIONS_URL}/:scid`,
    config: { auth: { kind: 'bearer', scopes: ['read:patient_prescription'] } },
    schema: {
      summary: "One of the patient's prescriptions, by SCID (a SCID that is not 18 letters and digits is a 400)",
      tags: ['prescriptions'],
      params: PrescriptionParams,
      response: { 200: PrescriptionDataResponse, ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const { user_id: userId, patient_id: patientId, scid } = request.params;
      const data = await readPatientPrescription(prescriptions, principalOf(request), { userId, patientId, scid });
      return reply.success(200, 'Prescription retrieved successfully', data);
    },
  });
};
