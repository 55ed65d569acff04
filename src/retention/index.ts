// The face of the retention feature: the run of the steps every feature registers for what it
// keeps only for a while (features.ts lists them), the hourly schedule, and the report per step.
// Code outside src/retention/ imports only this file. test/architecture/imports.test.ts holds it.
export {
  createRetentionContext,
  pruneExpiredRecords,
  type PruneOptions,
  type PruneReport,
  RETENTION_BATCH_ROWS,
  type RetentionContext,
  type RetentionCounts,
  retentionKindsOf,
  type StepReport,
} from './retention-service.ts';
export { RETENTION_EVERY_MS, RETENTION_FIRST_AFTER_MS, type RetentionTimers, type RunningRetention, startRetentionSchedule } from './retention-schedule.ts';
