// The face of the retention feature: pruning what the service keeps only for a while (webhook
// history, response bodies, idempotency keys, SSO tokens, portal sessions and form ids), the
// hourly schedule, and whether an absent webhook event was pruned. Code outside src/retention/
// imports only this file. test/architecture/imports.test.ts holds it.
export {
  createRetentionContext,
  findPrunedEventIds,
  pruneExpiredRecords,
  type PruneOptions,
  type PruneReport,
  RETENTION_BATCH_ROWS,
  RETENTION_KINDS,
  type RetentionContext,
  type RetentionCounts,
  type RetentionKind,
  type SignInLifetimes,
} from './retention-service.ts';
export { RETENTION_EVERY_MS, RETENTION_FIRST_AFTER_MS, type RetentionTimers, type RunningRetention, startRetentionSchedule } from './retention-schedule.ts';
