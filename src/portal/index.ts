// The face of the portal feature: the portal context and its pages. Code outside src/portal/
// (other features, app.ts, cli/, scripts/) imports only this file, and the face exports only what they use (tests and the bench may import its own files); its own files import each
// other directly. test/architecture/imports.test.ts holds it.
export { approvalPages } from './approval-pages.ts';
export { createPortalContext, type PortalContext } from './portal-service.ts';
export { dashboardPages } from './dashboard-pages.ts';
export { installPortal } from './portal-context.ts';
export { mfaPages } from './mfa-pages.ts';
export { mfaResetPages } from './mfa-reset-pages.ts';
export { medicineSearchPages } from './medicine-search-pages.ts';
export { prescriptionPages } from './prescription-pages.ts';
export { signInPages } from './sign-in-pages.ts';
export { createPortalFormsRetentionStep } from './portal-forms-retention.ts';
