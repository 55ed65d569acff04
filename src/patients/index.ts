// The face of the patients feature: the patient routes and the reads other features build on. Code
// outside src/patients/ (other features, app.ts, cli/, scripts/) imports only this file, and the face exports only what they use (tests and the bench may import its own files); its
// own files import each other directly. test/architecture/imports.test.ts holds it.
export { createPatientsContext, type PatientsContext } from './patients-service.ts';
export { findPatientsOfPartnerId, type PatientRow, type PatientScriptIdentity, notePatientsShown, requirePatient, requirePatientStillLive, scriptIdentityOfPatient, showPatient } from './patient-reads.ts';
export { contactOfPatient } from './patient-records.ts';
export { patientsRoutes } from './patients-routes.ts';
