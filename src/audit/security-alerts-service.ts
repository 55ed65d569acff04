// What an operator does with the security alerts (`erx audit alerts`) and what retention does
// with them: list the busiest buckets, newest minute first (retention: security-alerts-retention.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { AuditError, readTime } from './audit-service.ts';
import { findSecurityAlerts, type SecurityAlertRow } from './security-alerts-store.ts';

export type SecurityAlertView = SecurityAlertRow;

export async function listSecurityAlerts(db: Kysely<Database>, input: { since?: string; address?: string; limit?: string }): Promise<SecurityAlertView[]> {
  const since = readTime('--since', input.since);
  const limit = input.limit === undefined ? 100 : Number(input.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new AuditError(`--limit must be a whole number from 1 to 10000, got "${input.limit}"`);
  const filter = { ...(since !== undefined ? { since } : {}), ...(input.address !== undefined ? { clientAddress: input.address } : {}) };
  return findSecurityAlerts(db, filter, limit);
}

