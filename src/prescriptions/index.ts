// The face of the prescriptions feature: the prescription routes, the lifecycle, the changes and
// reads the portal calls, the form's fields and choices. Code outside src/prescriptions/ (other
// features, app.ts, cli/, scripts/) imports only this file; its own files import each other
// directly. test/architecture/imports.test.ts holds it.
export { prescribeOrRefuse } from './prescription-create.ts';
export { createPrescriptionsContext, readControlledStatus, type PrescriptionsContext } from './prescriptions-service.ts';
export { SANDBOX_PHARMACIES } from './pharmacy-directory.ts';
export { approveDraft, declineDraft, DECLINE_REASON_MAX_LENGTH, type DraftView, listDrafts, prepareDraft, readDraft } from './prescription-drafts.ts';
export { changePrescriptionOrRefuse, type PrescriptionChange } from './prescription-changes.ts';
export { writeOnPaperInstead } from './prescription-paper-instead.ts';
export type { PatientContact } from './prescription-delivery.ts';
export { COUNT_LIMITS, type CountField, describeCountLimit, ITEM_FIELDS, readCount, TEXT_LIMITS } from './prescription-fields.ts';
export { portalActionOf, PRESCRIPTION_CHANGES, PRESCRIPTION_EVENTS, TRANSITIONS } from './prescription-lifecycle.ts';
export { listPatientPrescriptions, printPaperPrescription, readPatientPrescriptionWithMessage, requirePatientPrescriptionScid, UNPRINTABLE_PAPER } from './prescription-reads.ts';
export { referenceOf } from './prescription-view.ts';
export { readPracticeGaps } from './prescription-authorship.ts';
export { prescriptionTestHelpersRoutes } from './prescription-test-helpers-routes.ts';
export { prescriptionsRoutes } from './prescriptions-routes.ts';
export type { Delivery, LegalMetadata, PrescribeBody, Prescription } from './prescriptions-schemas.ts';
export { tokenPageRoutes } from './token-page-routes.ts';
export { tokenPageUrlOf } from './prescription-token-message.ts';
export { describeMedicine, renderScidQrCode } from './token-page-view.ts';
export { createPdsSubmissionOutbox } from './pds-submission-outbox.ts';
export { startPdsSubmissionRunner } from './pds-submission-runner.ts';
export { dispenseInSandbox } from './prescription-dispensing.ts';
