// IHI precheck, create, read, update and delete patient, under the acting user of an organization.
// Bodies are validated with attachValidation so the schema failures and the identifier
// checks leave together as one 422.
import { principalOf } from '../auth/index.ts';
import { textField, type IdempotentCreate } from '../idempotency/index.ts';
import { errorResponses } from '../platform/http/envelope.ts';
import { submittedBody } from '../platform/http/body-validation.ts';
import type { RouteModule } from '../route-module.ts';
import { deletePatient } from './patient-deletion.ts';
import { readPatient } from './patient-reads.ts';
import { updatePatient } from './patient-update.ts';
import {
  PatientCreatedResponse,
  PatientDeletedResponse,
  PatientExistingResponse,
  PatientIdParams,
  PatientInput,
  PatientParams,
  PatientResponse,
  PatientUpdateInput,
  PatientUpdatedResponse,
  PrecheckResponse,
} from './patients-schemas.ts';
import { createPatient, runIhiPrecheck, type PatientsContext } from './patients-service.ts';

/** A full patient body is under 4 KB; anything near this limit is not a patient. */
const PATIENT_BODY_LIMIT_BYTES = 32 * 1024;

const PATIENTS_URL = '/v1/organizations/:organization_id/users/:user_id/patients';

/** A create retried with its Idempotency-Key is recorded against the patient it made. */
const PATIENT_CREATE: IdempotentCreate = { resourceOf: (data) => ({ patientId: textField(data, 'platform_patient_id') }) };

export const patientsRoutes: RouteModule<PatientsContext> = (app, patients) => {
  app.route({
    method: 'POST',
    url: `${PATIENTS_URL}/ihi-precheck`,
    config: { auth: { kind: 'bearer', scopes: ['create:patient'] } },
    attachValidation: true,
    bodyLimit: PATIENT_BODY_LIMIT_BYTES,
    schema: {
      summary: 'Check whether patient details resolve an IHI, without creating anything',
      description: 'Runs the HI Service search create patient would run. Branch on data.outcome; the IHI is never returned.',
      tags: ['patients'],
      params: PatientParams,
      body: PatientInput,
      response: { 200: PrecheckResponse, ...errorResponses(404, 409, 415, 422) },
    },
    handler: async (request, reply) => {
      const { message, data } = await runIhiPrecheck(patients, principalOf(request), request.params.user_id, submittedBody(request));
      return reply.success(200, message, data);
    },
  });

  app.route({
    method: 'POST',
    url: PATIENTS_URL,
    config: { auth: { kind: 'bearer', scopes: ['create:patient'] }, idempotent: PATIENT_CREATE },
    attachValidation: true,
    bodyLimit: PATIENT_BODY_LIMIT_BYTES,
    schema: {
      summary: 'Create a patient (or return the one with this partner_patient_id)',
      tags: ['patients'],
      params: PatientParams,
      body: PatientInput,
      response: { 201: PatientCreatedResponse, 200: PatientExistingResponse, ...errorResponses(404, 409, 415, 422, 503) },
    },
    handler: async (request, reply) => {
      const { created, data } = await createPatient(patients, principalOf(request), request.params.user_id, submittedBody(request));
      return created ? reply.success(201, 'Patient created successfully', data) : reply.success(200, 'Patient already exists', data);
    },
  });

  app.route({
    method: 'PUT',
    url: `${PATIENTS_URL}/:patient_id`,
    config: { auth: { kind: 'bearer', scopes: ['update:patient'] } },
    attachValidation: true,
    bodyLimit: PATIENT_BODY_LIMIT_BYTES,
    schema: {
      summary: 'Update a patient (partial); changed demographics re-run the IHI verification',
      tags: ['patients'],
      params: PatientIdParams,
      body: PatientUpdateInput,
      response: { 200: PatientUpdatedResponse, ...errorResponses(404, 415, 422, 503) },
    },
    handler: async (request, reply) => {
      const { user_id: userId, patient_id: patientId } = request.params;
      const data = await updatePatient(patients, principalOf(request), { userId, patientId }, submittedBody(request));
      return reply.success(200, 'Patient updated successfully', data);
    },
  });

  app.route({
    method: 'GET',
    url: `${PATIENTS_URL}/:patient_id`,
    // A partner that may create a patient may read back what it created.
    config: { auth: { kind: 'bearer', scopes: ['read:patient', 'create:patient'] } },
    schema: {
      summary: 'Read a patient: the fields create accepts as stored (never the IHI itself), platform_patient_id and has_ihi',
      tags: ['patients'],
      params: PatientIdParams,
      response: { 200: PatientResponse, ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const { user_id: userId, patient_id: patientId } = request.params;
      const data = await readPatient(patients, principalOf(request), { userId, patientId });
      return reply.success(200, 'Patient retrieved successfully', data);
    },
  });

  app.route({
    method: 'DELETE',
    url: `${PATIENTS_URL}/:patient_id`,
    config: { auth: { kind: 'bearer', scopes: ['update:patient'] } },
    schema: {
      summary: 'Delete a patient (idempotent): gone from every read, its partner_patient_id free; its prescriptions are kept',
      description: 'Refused with 409 while the patient has an Active prescription.',
      tags: ['patients'],
      params: PatientIdParams,
      response: { 200: PatientDeletedResponse, ...errorResponses(404, 409) },
    },
    handler: async (request, reply) => {
      const { user_id: userId, patient_id: patientId } = request.params;
      const deleted = await deletePatient(patients, principalOf(request), { userId, patientId });
      return reply.success(200, 'Patient deleted successfully', deleted);
    },
  });
};
