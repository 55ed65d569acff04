// Retention: what the service keeps only for a while is deleted in batches of at most
// RETENTION_BATCH_ROWS rows, each batch its own short transaction, so requests running beside a
// large prune wait for one batch at most, never for the whole backlog. Children go before their
// parents. Two instances pruning at once are harmless: on PostgreSQL they take different
// webhook events (SKIP LOCKED), and a batch that finds its rows already gone deletes nothing.
// Run by `erx prune` and hourly beside every dispatcher (retention-schedule.ts).
import { setTimeout as wait } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { countExpiredSecurityAlerts, deleteExpiredSecurityAlerts } from '../audit/index.ts';
import type { Logger } from 'pino';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import type { Deps } from '../deps.ts';
import {
  clearResponseBodiesBatch,
  countIdempotencyKeys,
  countPortalFormIds,
  countPortalSessions,
  countSsoTokens,
  deleteIdempotencyKeysBatch,
  deletePortalFormIdsBatch,
  deletePortalSessionsBatch,
  deleteSsoTokensBatch,
} from './retention-store.ts';
import { countPrunableWebhookHistory, countResponseBodiesKept, findEventsMark, pruneWebhookHistoryBatch } from './retention-webhooks-store.ts';

/** Rows one batch deletes (or, for response bodies, clears) at most: one short transaction. */
export const RETENTION_BATCH_ROWS = 1_000;
/**
 * Between two batches the prune waits as long as the last batch took, and at least this many
 * milliseconds: it holds the database's writer at most half the time, and the writers of other
 * processes get a turn (on SQLite a process waiting for the write lock polls for it, sleeping up
 * to 100 ms between polls; a prune that began its next batch at once could starve it).
 */
export const RETENTION_PAUSE_MIN_MS = 25;

export const RETENTION_KINDS = [
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
  'webhook_response_bodies',
  'idempotency_keys',
  'sso_tokens',
  'portal_sessions',
  'portal_form_ids',
  'security_alerts',
] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];
export type RetentionCounts = Record<RetentionKind, number>;

export interface RetentionContext {
  db: Kysely<Database>;
  clock: Clock;
  unitOfWork: UnitOfWork;
  logger: Logger;
  webhookDays: number;
  bodiesDays: number;
  /** ERX_RETENTION_SECURITY_ALERT_DAYS: refusal counts, kept apart from the audit chain. */
  securityAlertDays: number;
  signIns: SignInLifetimes;
}

/** How long the sso feature honours what it issued (its own rules, handed over by features.ts). */
export interface SignInLifetimes {
  /** Expired SSO tokens are kept this long, so a late click is told "expired" rather than "unknown". */
  expiredTokensKeptSeconds: number;
  sessionIdleTimeoutSeconds: number;
  sessionMaxAgeSeconds: number;
}

export function createRetentionContext(deps: Pick<Deps, 'database' | 'clock' | 'logger' | 'config'>, parts: { unitOfWork: UnitOfWork; signIns: SignInLifetimes }): RetentionContext {
  const { config } = deps;
  return {
    db: deps.database,
    clock: deps.clock,
    unitOfWork: parts.unitOfWork,
    logger: deps.logger,
    webhookDays: config.retentionWebhookDays,
    bodiesDays: config.retentionBodiesDays,
    securityAlertDays: config.retentionSecurityAlertDays,
    signIns: parts.signIns,
  };
}

/** The times a run prunes up to, all from one reading of the clock. */
interface Cutoffs {
  now: string;
  /** Webhook events created before this whose deliveries have all finished. */
  webhookEvents: string;
  /** Response bodies of attempts started before this. */
  responseBodies: string;
  /** Security alerts whose last refusal came before this. */
  securityAlerts: string;
  /** SSO tokens that expired before this (kept a day past expiry, so a late click is told "expired"). */
  ssoTokens: string;
  /** Portal sessions last seen before this... */
  sessionsIdleSince: string;
  /** ...or opened before this. */
  sessionsOpenedBefore: string;
}

function cutoffsAt(ctx: RetentionContext, now: Date): Cutoffs {
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
  const DAY = 86_400;
  return {
    now: now.toISOString(),
    webhookEvents: ago(ctx.webhookDays * DAY),
    responseBodies: ago(ctx.bodiesDays * DAY),
    securityAlerts: ago(ctx.securityAlertDays * DAY),
    ssoTokens: ago(ctx.signIns.expiredTokensKeptSeconds),
    sessionsIdleSince: ago(ctx.signIns.sessionIdleTimeoutSeconds),
    sessionsOpenedBefore: ago(ctx.signIns.sessionMaxAgeSeconds),
  };
}

type Db = Kysely<Database>;

/** One kind of pruning: what a dry run counts, and one batch of the real thing (with whether more may remain). */
interface Step {
  count(db: Db, c: Cutoffs): Promise<Partial<RetentionCounts>>;
  batch(trx: Db, c: Cutoffs, limit: number): Promise<{ rows: Partial<RetentionCounts>; more: boolean }>;
}

/** A step that deletes one kind of row, `limit` at a time. */
const single = (kind: RetentionKind, count: (db: Db, c: Cutoffs) => Promise<number>, batch: (trx: Db, c: Cutoffs, limit: number) => Promise<number>): Step => ({
  count: async (db, c) => ({ [kind]: await count(db, c) }),
  batch: async (trx, c, limit) => {
    const n = await batch(trx, c, limit);
    return { rows: { [kind]: n }, more: n === limit };
  },
});

/** In this order: webhook history before the bodies (no clearing what is deleted next), sessions before their form ids. */
const STEPS: Step[] = [
  {
    count: (db, c) => countPrunableWebhookHistory(db, c.webhookEvents),
    batch: async (trx, c, limit) => {
      const { candidates, ...rows } = await pruneWebhookHistoryBatch(trx, c.webhookEvents, limit, c.now);
      // More remain if the batch found a full set of candidates or could not fit them all in its rows.
      return { rows, more: rows.webhook_events > 0 && (candidates === limit || rows.webhook_events < candidates) };
    },
  },
  single('webhook_response_bodies', (db, c) => countResponseBodiesKept(db, c.responseBodies, c.webhookEvents), (trx, c, limit) => clearResponseBodiesBatch(trx, c.responseBodies, limit)),
  single('idempotency_keys', (db, c) => countIdempotencyKeys(db, c.now), (trx, c, limit) => deleteIdempotencyKeysBatch(trx, c.now, limit)),
  single('sso_tokens', (db, c) => countSsoTokens(db, c.ssoTokens), (trx, c, limit) => deleteSsoTokensBatch(trx, c.ssoTokens, limit)),
  single(
    'portal_sessions',
    (db, c) => countPortalSessions(db, { idleSince: c.sessionsIdleSince, openedBefore: c.sessionsOpenedBefore }),
    (trx, c, limit) => deletePortalSessionsBatch(trx, { idleSince: c.sessionsIdleSince, openedBefore: c.sessionsOpenedBefore }, limit),
  ),
  single('portal_form_ids', (db) => countPortalFormIds(db), (trx, _c, limit) => deletePortalFormIdsBatch(trx, limit)),
  single('security_alerts', (db, c) => countExpiredSecurityAlerts(db, c.securityAlerts), (trx, c, limit) => deleteExpiredSecurityAlerts(trx, c.securityAlerts, limit)),
];

export interface PruneOptions {
  /** Count what would go; delete nothing. */
  dryRun?: boolean;
  /** After each batch (real runs): what it removed, and the totals so far. */
  onBatch?: (batch: { rows: Partial<RetentionCounts>; totals: RetentionCounts }) => void;
  /** Stops between batches (shutdown); the report says it was interrupted. */
  signal?: AbortSignal;
}

export interface PruneReport {
  dry_run: boolean;
  /** What each kind was pruned up to (ISO times). */
  cutoffs: Omit<Cutoffs, 'now'>;
  /** Rows deleted (or, for a dry run, that would be), per kind; response bodies are cleared, their attempts kept. */
  counts: RetentionCounts;
  batches: number;
  interrupted: boolean;
}

export async function pruneExpiredRecords(ctx: RetentionContext, options: PruneOptions = {}): Promise<PruneReport> {
  const { now, ...cutoffs } = cutoffsAt(ctx, ctx.clock.now());
  const report: PruneReport = { dry_run: options.dryRun === true, cutoffs, counts: emptyCounts(), batches: 0, interrupted: false };
  for (const step of STEPS) {
    if (options.dryRun) {
      addCounts(report.counts, await step.count(ctx.db, { now, ...cutoffs }));
      continue;
    }
    let more = true;
    while (more) {
      if (options.signal?.aborted) {
        report.interrupted = true;
        return report;
      }
      const started = performance.now();
      const batch = await ctx.unitOfWork.run(({ trx }) => step.batch(trx, { now, ...cutoffs }, RETENTION_BATCH_ROWS));
      more = batch.more;
      report.batches += 1;
      addCounts(report.counts, batch.rows);
      options.onBatch?.({ rows: batch.rows, totals: { ...report.counts } });
      if (more) await pauseAfter(performance.now() - started, options.signal);
    }
  }
  return report;
}

/** Resolves after the pause, or at once when the signal aborts (the loop then stops). */
async function pauseAfter(batchMs: number, signal: AbortSignal | undefined): Promise<void> {
  await wait(Math.max(RETENTION_PAUSE_MIN_MS, batchMs), undefined, { signal }).catch(() => undefined);
}

function emptyCounts(): RetentionCounts {
  return Object.fromEntries(RETENTION_KINDS.map((kind) => [kind, 0])) as RetentionCounts;
}

function addCounts(totals: RetentionCounts, rows: Partial<RetentionCounts>): void {
  for (const kind of RETENTION_KINDS) totals[kind] += rows[kind] ?? 0;
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
