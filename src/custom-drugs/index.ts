// The face of the custom-drugs feature: the catalog routes, the service prescribing reads drugs
// through, the drug fields. Code outside src/custom-drugs/ (other features, app.ts, cli/, scripts/) imports only this file; its own files import each other directly.
// test/architecture/imports.test.ts holds it.
export { createCustomDrugsContext, type CustomDrugsContext, findPrescribableDrug, searchDrugsVisibleToUser } from './custom-drugs-service.ts';
export { type CustomDrug } from './custom-drugs-fields.ts';
export { customDrugRoutes } from './custom-drugs-routes.ts';
export { type DrugLevel } from './custom-drugs-schemas.ts';
