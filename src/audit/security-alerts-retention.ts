// The security alerts' retention step (registered in features.ts): buckets whose last refusal
// came more than ERX_RETENTION_SECURITY_ALERT_DAYS (365) ago are deleted, in batches. The audit
// chain itself has no step: only `erx audit prune` removes its entries, as a chained entry.
import { singleKindStep, type RetentionStep } from '../platform/db/retention-step.ts';
import { countSecurityAlertsBefore, deleteSecurityAlertsBatch } from './security-alerts-store.ts';

const DAY_MS = 86_400_000;

export function createSecurityAlertRetentionStep(days: number): RetentionStep {
  const before = (now: Date) => new Date(now.getTime() - days * DAY_MS).toISOString();
  return singleKindStep({
    name: 'security_alerts',
    table: 'security_alerts',
    setting: 'ERX_RETENTION_SECURITY_ALERT_DAYS',
    cutoffs: (now) => ({ securityAlerts: before(now) }),
    count: (db, now) => countSecurityAlertsBefore(db, before(now)),
    batch: (trx, now, limit) => deleteSecurityAlertsBatch(trx, before(now), limit),
  });
}
