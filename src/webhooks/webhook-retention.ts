// The webhooks' retention steps (registered in features.ts): the history of events whose
// deliveries have all finished (ERX_RETENTION_WEBHOOK_DAYS), with their deliveries and attempts,
// then the receivers' response bodies on older attempts (ERX_RETENTION_BODIES_DAYS), the history
// first so no body is cleared that is deleted next. Two instances pruning at once are harmless:
// on PostgreSQL they take different events (SKIP LOCKED), and a batch that finds its rows gone
// deletes nothing. Also: whether an absent event was pruned (the mark the history step raises).
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { DAY_SECONDS, secondsBefore, singleKindStep, type RetentionStep } from '../platform/db/retention-step.ts';
import { clearResponseBodiesBatch, countPrunableWebhookHistory, countResponseBodiesKept, findEventsMark, pruneWebhookHistoryBatch } from './webhook-retention-store.ts';

export interface WebhookRetention {
  /** Events (finished) older than this many days go, with their deliveries and attempts. */
  historyDays: number;
  /** Response bodies of attempts older than this many days are cleared. */
  bodiesDays: number;
}

export function createWebhookRetentionSteps(days: WebhookRetention): RetentionStep[] {
  const eventsBefore = (now: Date) => secondsBefore(now, days.historyDays * DAY_SECONDS);
  const bodiesBefore = (now: Date) => secondsBefore(now, days.bodiesDays * DAY_SECONDS);
  const history: RetentionStep = {
    name: 'webhook_history',
    kinds: ['webhook_events', 'webhook_deliveries', 'webhook_attempts'],
    tables: ['webhook_events', 'webhook_deliveries', 'webhook_attempts'],
    setting: 'ERX_RETENTION_WEBHOOK_DAYS',
    cutoffs: (now) => ({ webhookEvents: eventsBefore(now) }),
    count: async (db, now) => ({ ...(await countPrunableWebhookHistory(db, eventsBefore(now))) }),
    batch: async (trx, now, limit) => {
      const { candidates, ...rows } = await pruneWebhookHistoryBatch(trx, eventsBefore(now), limit, now.toISOString());
      // More remain if the batch found a full set of candidates or could not fit them all in its rows.
      return { rows: { ...rows }, more: rows.webhook_events > 0 && (candidates === limit || rows.webhook_events < candidates) };
    },
  };
  const bodies = singleKindStep({
    name: 'webhook_response_bodies',
    table: 'webhook_attempts',
    setting: 'ERX_RETENTION_BODIES_DAYS',
    cutoffs: (now) => ({ responseBodies: bodiesBefore(now) }),
    count: (db, now) => countResponseBodiesKept(db, bodiesBefore(now), eventsBefore(now)),
    batch: (trx, now, limit) => clearResponseBodiesBatch(trx, bodiesBefore(now), limit),
  });
  return [history, bodies];
}

const EVENT_ID = /^evt_[0-9a-f]{32}$/;

/**
 * Which of these event ids, none of them stored, were pruned. Event ids begin with their creation
 * time, and retention keeps the highest id it pruned: an absent id at or below it is older than
 * what is kept. (An id never issued but shaped like an old one reads as pruned too; nothing
 * short of a row per pruned event could tell them apart.)
 */
export async function findPrunedEventIds(ctx: { db: Kysely<Database> }, absentIds: readonly string[]): Promise<string[]> {
  const mark = await findEventsMark(ctx.db);
  if (mark === undefined) return [];
  return absentIds.filter((id) => EVENT_ID.test(id) && id <= mark);
}
