// The sandbox test helpers: make prescriptions happen without the portal, like a payment
// API's test helpers, with the same service (rules and events) the portal will call. The
// path's user_id is the acting prescriber. Listed in app.ts as sandboxOnly: in production
// these routes do not exist.
import { principalOf } from '../auth/index.ts';
import { submittedBody } from '../platform/http/body-validation.ts';
import { errorResponses } from '../platform/http/envelope.ts';
import type { RouteModule } from '../route-module.ts';
import { changePrescription, type PrescriptionChange } from './prescription-changes.ts';
import { TRANSITIONS } from './prescription-lifecycle.ts';
import { ChangeBody, PrescribeBody, PrescriptionParams, PrescriptionResponse, PrescriptionsParams, ReissueBody } from './prescriptions-schemas.ts';
import { prescribe, type PrescriptionsContext } from './prescriptions-service.ts';

const HELPERS_URL = '/v1/test-helpers/organizations/:organization_id/users/:user_id/patients/:patient_id/prescriptions';

/** A prescribe body is a few KB at most. */
const PRESCRIPTION_BODY_LIMIT_BYTES = 32 * 1024;

const CHANGES: ReadonlyArray<{ action: PrescriptionChange; body: typeof ChangeBody | typeof ReissueBody; summary: string }> = [
  { action: 'cease', body: ChangeBody, summary: 'Sandbox: cease an Active prescription' },
  { action: 'cancel', body: ChangeBody, summary: 'Sandbox: cancel an Active prescription' },
  { action: 'reissue', body: ReissueBody, summary: 'Sandbox: deliver the token of an Active prescription again (the delivery is overwritten; the SCID stays)' },
];

export const prescriptionTestHelpersRoutes: RouteModule<PrescriptionsContext> = (app, prescriptions) => {
  app.route({
    method: 'POST',
    url: HELPERS_URL,
    config: { auth: { kind: 'bearer', scopes: ['sandbox:prescribe'] }, idempotent: true },
    attachValidation: true,
    bodyLimit: PRESCRIPTION_BODY_LIMIT_BYTES,
    schema: {
      summary: 'Sandbox: prescribe, as the path user, for the path patient',
      tags: ['sandbox test helpers'],
      params: PrescriptionsParams,
      body: PrescribeBody,
      response: { 201: PrescriptionResponse, ...errorResponses(404, 409, 415, 422) },
    },
    handler: async (request, reply) => {
      const { user_id: userId, patient_id: patientId } = request.params;
      const prescription = await prescribe(prescriptions, principalOf(request), { userId, patientId }, submittedBody(request));
      return reply.success(201, 'Prescription created successfully', prescription);
    },
  });

  for (const { action, body, summary } of CHANGES) {
    app.route({
      method: 'POST',
      url: `${HELPERS_URL}/:scid/${action}`,
      config: { auth: { kind: 'bearer', scopes: ['sandbox:prescribe'] } },
      attachValidation: true,
      bodyLimit: PRESCRIPTION_BODY_LIMIT_BYTES,
      schema: {
        summary,
        tags: ['sandbox test helpers'],
        params: PrescriptionParams,
        body,
        response: { 200: PrescriptionResponse, ...errorResponses(404, 409, 415, 422) },
      },
      handler: async (request, reply) => {
        const { user_id: userId, patient_id: patientId, scid } = request.params;
        const prescription = await changePrescription(prescriptions, principalOf(request), { userId, patientId, scid }, action, submittedBody(request));
        return reply.success(200, `Prescription ${TRANSITIONS[action].verb} successfully`, prescription);
      },
    });
  }
};
