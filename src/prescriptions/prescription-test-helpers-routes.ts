// The sandbox test helpers: make prescriptions happen without the portal, like a payment
// API's test helpers, with the same service (rules and events) the portal will call. The
// path's user_id is the acting prescriber, and every action of the lifecycle table has its
// route. Listed in app.ts as sandboxOnly: in production these routes do not exist.
import { Type } from '@sinclair/typebox';
import { principalOf } from '../auth/index.ts';
import { textField, type IdempotentCreate } from '../idempotency/index.ts';
import { SuccessEnvelopeSchema } from '../platform/http/envelope.ts';
import { dispenseInSandbox } from './prescription-dispensing.ts';
import { submittedBody } from '../platform/http/body-validation.ts';
import { errorResponses } from '../platform/http/envelope.ts';
import type { RouteModule } from '../route-module.ts';
import { changePrescription } from './prescription-changes.ts';
import { PRESCRIPTION_CHANGES, TRANSITIONS, type PrescriptionAction, type PrescriptionChange } from './prescription-lifecycle.ts';
import { ChangeBody, Dispensing, PrescribeBody, PrescriptionParams, PrescriptionResponse, PrescriptionsParams, ReissueBody } from './prescriptions-schemas.ts';
import { prescribe } from './prescription-create.ts';
import type { PrescriptionsContext } from './prescriptions-service.ts';

const HELPERS_URL = '/v1/test-helpers/organizations/:organization_id/users/:user_id/patients/:patient_id/prescriptions';

/** The helper route of each lifecycle action: creating posts to the list, a change to the prescription's own action. */
function helperRouteOf(action: PrescriptionAction): string {
  return action === 'create' ? HELPERS_URL : `${HELPERS_URL}/:scid/${action}`;
}

/** A prescribe body is a few KB at most. */
const PRESCRIPTION_BODY_LIMIT_BYTES = 32 * 1024;

/** The body each change takes: a reissue may say where the token goes this time. */
const CHANGE_BODIES: Readonly<Record<PrescriptionChange, typeof ChangeBody | typeof ReissueBody>> = { cease: ChangeBody, cancel: ChangeBody, reissue: ReissueBody };

const DispenseParams = Type.Object({ organization_id: Type.String(), scid: Type.String() });
const DispenseResponse = SuccessEnvelopeSchema(Type.Object({ scid: Type.String(), dispensing: Dispensing }));

/** A create retried with its Idempotency-Key is recorded against the patient and the prescription it made (its SCID, or erx's id while Pending). */
const PRESCRIPTION_CREATE: IdempotentCreate = {
  resourceOf: (data, params) => ({
    patientId: params.patient_id ?? null,
    scid: textField(data, 'scid'),
    subjectId: textField((data.legal_metadata ?? {}) as Record<string, unknown>, 'prescription_id'),
  }),
};

export const prescriptionTestHelpersRoutes: RouteModule<PrescriptionsContext> = (app, prescriptions) => {
  // A pharmacy's dispense at the sandbox PDS: the next supply of the organization's prescription.
  app.route({
    method: 'POST',
    url: '/v1/test-helpers/organizations/:organization_id/prescriptions/:scid/dispense',
    config: { auth: { kind: 'bearer', scopes: ['sandbox:prescribe'] } },
    schema: {
      summary: 'Sandbox: a pharmacy dispenses the next supply of the prescription (the sandbox PDS counts it; prescription.dispensed goes to subscribed endpoints)',
      tags: ['sandbox test helpers'],
      params: DispenseParams,
      response: { 200: DispenseResponse, ...errorResponses(400, 404, 409, 503) },
    },
    handler: async (request, reply) => {
      const dispensed = await dispenseInSandbox(prescriptions, request.params.scid, principalOf(request).organizationId);
      return reply.success(200, 'Prescription dispensed at the sandbox PDS', { scid: dispensed.scid, dispensing: dispensed.dispensing });
    },
  });

  app.route({
    method: 'POST',
    url: helperRouteOf('create'),
    config: { auth: { kind: 'bearer', scopes: ['sandbox:prescribe'] }, idempotent: PRESCRIPTION_CREATE },
    attachValidation: true,
    bodyLimit: PRESCRIPTION_BODY_LIMIT_BYTES,
    schema: {
      summary: TRANSITIONS.create.helperSummary,
      tags: ['sandbox test helpers'],
      params: PrescriptionsParams,
      body: PrescribeBody,
      response: { 201: PrescriptionResponse, ...errorResponses(404, 409, 415, 422) },
    },
    handler: async (request, reply) => {
      const { user_id: userId, patient_id: patientId } = request.params;
      const prescription = await prescribe(prescriptions, principalOf(request), { userId, patientId }, submittedBody(request));
      return reply.success(201, `Prescription ${TRANSITIONS.create.verb} successfully`, prescription);
    },
  });

  for (const action of PRESCRIPTION_CHANGES) {
    app.route({
      method: 'POST',
      url: helperRouteOf(action),
      config: { auth: { kind: 'bearer', scopes: ['sandbox:prescribe'] } },
      attachValidation: true,
      bodyLimit: PRESCRIPTION_BODY_LIMIT_BYTES,
      schema: {
        summary: TRANSITIONS[action].helperSummary,
        tags: ['sandbox test helpers'],
        params: PrescriptionParams,
        body: CHANGE_BODIES[action],
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
