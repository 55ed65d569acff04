// Security alerts: refusals an outsider can cause (refused credentials at /v1/token, /v1/sso,
// /v1/partner), kept apart from the 7-year audit chain (issue 38 item 3). One row per minute,
// client address, endpoint and reason holds a count, so a flood of any size costs a row per
// address a minute, never an entry of the chain. The claimed ids of a bucket's first refusal are
// kept when well-formed (a partner with a wrong secret is told apart); malformed ones, which are
// whatever the caller sent, only as a short hash.
//
// The first refusal of a bucket on this instance is written before its answer leaves (and fails
// the request when it cannot be written, as the chain's reads do); later ones in the same
// bucket are counted in memory and added at most FLUSH_EVERY_MS later (on the next refusal after
// that, or at shutdown, flush()), so a flood costs a write a second per instance.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { addSecurityAlertCounts, type SecurityAlertRow } from './security-alerts-store.ts';

/** How long counts of known buckets may wait in memory: what a crash may lose. */
export const FLUSH_EVERY_MS = 1_000;

export interface SecurityAlert {
  endpoint: string;
  reason: string;
  clientAddress: string | null;
  /** The ids the refused caller claimed, each with whether it is well-formed (else stored only as a short hash). */
  claimed?: { partnerId: ClaimedId; organizationId: ClaimedId; userId: ClaimedId };
}

export interface ClaimedId {
  value: string | null;
  wellFormed: boolean;
}

export interface SecurityAlerts {
  /** Counts one refusal (see the header); throws when a new bucket cannot be written. */
  note(alert: SecurityAlert): Promise<void>;
  /** Writes the counts waiting in memory (at shutdown; tests). */
  flush(): Promise<void>;
  retentionDays: number;
}

export const DEFAULT_SECURITY_ALERT_RETENTION_DAYS = 365;

/** `#` and the first 12 hex digits of SHA-256: tells two junk ids apart, keeps none of them. */
export function shortHashOf(value: string): string {
  return `#${createHash('sha256').update(value).digest('hex').slice(0, 12)}`;
}

/** Ids longer than this are not ids, whatever their form. */
const MAX_CLAIMED_ID = 100;

function claimedColumn(id: ClaimedId | undefined): string | null {
  if (!id) return null;
  const { value, wellFormed } = id;
  if (value === null || value === '') return null;
  return wellFormed && value.length <= MAX_CLAIMED_ID ? value : shortHashOf(value);
}

export function createSecurityAlerts(deps: { database: Kysely<Database>; clock: Clock; retentionDays?: number }): SecurityAlerts {
  const { database, clock } = deps;
  /** Buckets already in the table (written by this instance), with the count not yet added. */
  const known = new Map<string, { row: SecurityAlertRow; unwritten: number }>();
  let lastFlushMs = clock.now().getTime();

  const waitingRows = (nowIso: string): SecurityAlertRow[] => {
    const rows: SecurityAlertRow[] = [];
    for (const bucket of known.values()) {
      if (bucket.unwritten === 0) continue;
      rows.push({ ...bucket.row, count: bucket.unwritten, last_at: nowIso });
    }
    return rows;
  };
  const write = async (extra: SecurityAlertRow[]): Promise<void> => {
    const now = clock.now();
    const rows = [...waitingRows(now.toISOString()), ...extra];
    const taken = new Map([...known].map(([key, bucket]) => [key, bucket.unwritten]));
    for (const bucket of known.values()) bucket.unwritten = 0;
    try {
      await database.transaction().execute((trx) => addSecurityAlertCounts(trx, rows));
    } catch (error) {
      for (const [key, count] of taken) {
        const bucket = known.get(key);
        if (bucket) bucket.unwritten += count;
      }
      throw error;
    }
    lastFlushMs = now.getTime();
    // Buckets of past minutes get no more refusals from this instance.
    const minute = minuteOf(now);
    for (const [key, bucket] of known) if (bucket.row.minute !== minute && bucket.unwritten === 0) known.delete(key);
  };

  return {
    retentionDays: deps.retentionDays ?? DEFAULT_SECURITY_ALERT_RETENTION_DAYS,
    async note(alert) {
      const now = clock.now();
      const minute = minuteOf(now);
      const address = alert.clientAddress ?? '';
      const key = JSON.stringify([minute, address, alert.endpoint, alert.reason]);
      const bucket = known.get(key);
      if (bucket) {
        bucket.unwritten += 1;
        if (now.getTime() - lastFlushMs >= FLUSH_EVERY_MS) await write([]);
        return;
      }
      const claimed = alert.claimed;
      const row: SecurityAlertRow = {
        minute,
        client_address: address,
        endpoint: alert.endpoint,
        reason: alert.reason,
        count: 1,
        first_at: now.toISOString(),
        last_at: now.toISOString(),
        partner_id: claimedColumn(claimed?.partnerId),
        organization_id: claimedColumn(claimed?.organizationId),
        user_id: claimedColumn(claimed?.userId),
      };
      await write([row]);
      known.set(key, { row, unwritten: 0 });
    },
    async flush() {
      if (waitingRows('').length > 0) await write([]);
    },
  };
}

/** `2026-11-28T23:42Z`: the minute a refusal falls in. */
function minuteOf(time: Date): string {
  return `${time.toISOString().slice(0, 16)}Z`;
}
