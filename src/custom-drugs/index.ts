// The face of the custom-drugs feature: the catalog routes, the service prescribing reads drugs
// through, the drug fields. Code outside src/custom-drugs/ (other features, app.ts, cli/, bench/,
// test/) imports only this file; its own files import each other directly.
// test/architecture/imports.test.ts holds it.
export {
  BULK_FAILURES_REPORTED,
  createCustomDrugsContext,
  type CustomDrugsContext,
  findPrescribableDrug,
  listDrugsVisibleToUser,
  searchDrugsVisibleToUser,
} from './custom-drugs-service.ts';
export { CUSTOM_DRUG_FIELD_NAMES, CUSTOM_DRUG_FIELDS, type CustomDrug, type CustomDrugField } from './custom-drugs-fields.ts';
export { customDrugRoutes } from './custom-drugs-routes.ts';
export { BULK_MAX_ITEMS, type DrugLevel } from './custom-drugs-schemas.ts';
