// The face of the medicines catalogue (the PBS Schedule and the search over it and the custom
// drugs). Code outside src/medicines/ imports only this file.
export { createMedicinesContext, describeCurrentSchedule, findPbsItem, type MedicinesContext } from './medicines-service.ts';
export { PBS_BENEFIT_TYPE_LABELS, PBS_BENEFIT_TYPES, type PbsBenefitType, type PbsItem } from './pbs-item.ts';
