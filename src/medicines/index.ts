// The face of the medicines catalogue: the PBS Schedule (its import, an item by code) and the
// prescriber's search over it and the custom drugs. Code outside src/medicines/ imports only
// this file.
export { createMedicinesContext, describeCurrentSchedule, findPbsItem, type MedicinesContext } from './medicines-service.ts';
export { MEDICINE_SEARCH_MAX_LIMIT, searchMedicines, type MedicineSearchResult } from './medicines-search.ts';
export { importPbsSchedule, type PbsImportResult } from './pbs-import.ts';
export { PbsImportError } from './pbs-import-error.ts';
export { PBS_BENEFIT_TYPE_LABELS, type PbsItem } from './pbs-item.ts';
export { SANDBOX_PBS_SCHEDULE } from './sandbox-schedule.ts';
