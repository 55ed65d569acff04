// The face of the prescriptions feature: the prescription routes, the lifecycle, the changes and
// reads the portal calls, the form's fields and choices. Code outside src/prescriptions/ (other
// features, app.ts, cli/, bench/, test/) imports only this file; its own files import each other
// directly. test/architecture/imports.test.ts holds it.
export { prescribe, prescribeOrRefuse } from './prescription-create.ts';
export { createPrescriptionsContext, readControlledStatus, type ControlledStatus, type PrescribingResult, type PrescriptionsContext } from './prescriptions-service.ts';
export { SANDBOX_PHARMACIES } from './pharmacy-directory.ts';
export { approveDraft, declineDraft, DECLINE_REASON_MAX_LENGTH, type DraftCaller, type DraftView, listDrafts, prepareDraft, readDraft } from './prescription-drafts.ts';
export { changePrescription, changePrescriptionOrRefuse, type PrescriptionChange } from './prescription-changes.ts';
export type { PatientContact } from './prescription-delivery.ts';
export { COUNT_LIMITS, type CountField, describeCountLimit, ITEM_FIELDS, readCount, TEXT_LIMITS } from './prescription-fields.ts';
export {
  portalActionOf,
  PRESCRIPTION_ACTIONS,
  PRESCRIPTION_CHANGES,
  PRESCRIPTION_EVENT_TYPES,
  PRESCRIPTION_EVENTS,
  transitionOf,
  TRANSITIONS,
  type PrescriptionAction,
} from './prescription-lifecycle.ts';
export { encodeLastKey } from './prescription-paging.ts';
export { PRESCRIPTION_RULES, type PbsItem, type PbsLookup, type PrescriptionRule } from './prescription-rules.ts';
export { listPatientPrescriptions, printPaperPrescription, readPatientPrescription, readPatientPrescriptionWithMessage, requirePatientPrescriptionScid } from './prescription-reads.ts';
export { buildPrescriptionLegalContent, loadPrescriptionLegalContent, readPrescriptionLegalContent, type Benefit, type PrescriptionLegalContent } from './prescription-legal-content.ts';
export { renderPrescriptionPdf } from './prescription-pdf.ts';
export { referenceOf } from './prescription-view.ts';
export { readPracticeGaps, type PracticeLookup } from './prescription-authorship.ts';
export { ruleOf, SCRIPT_CONTENT_RULES, SCRIPT_ITEMS, type ScriptContentRule, type ScriptItem } from './script-content-rules.ts';
export { australianDate, scriptItemsOf } from './script-items.ts';
export { prescriptionTestHelpersRoutes } from './prescription-test-helpers-routes.ts';
export { prescriptionsRoutes } from './prescriptions-routes.ts';
export type { Delivery, LegalMetadata, PrescribeBody, Prescription } from './prescriptions-schemas.ts';
export { isScidFormat, isValidScid } from '../pds/index.ts';
export { tokenPageRoutes } from './token-page-routes.ts';
export { describeMedicine, renderScidQrCode } from './token-page-view.ts';
export { createPdsSubmissionOutbox, type PdsSubmissionOutbox } from './pds-submission-outbox.ts';
export { runDueSubmissions } from './pds-submission.ts';
export type { PdsSettings } from './pds-settings.ts';
export { startPdsSubmissionRunner } from './pds-submission-runner.ts';
export { dispenseInSandbox } from './prescription-dispensing.ts';
