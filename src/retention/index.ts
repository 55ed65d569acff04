// The face of the retention feature: the run of the steps every feature registers for what it
// keeps only for a while (features.ts lists them), the hourly schedule, and the report per step.
// Code outside src/retention/ imports only this file. test/architecture/imports.test.ts holds it.
export { createRetentionContext, pruneExpiredRecords, type PruneReport, type RetentionContext, type RetentionCounts, retentionKindsOf } from './retention-service.ts';
export { startRetentionSchedule } from './retention-schedule.ts';
