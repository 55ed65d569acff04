// Token delivery: the context its runner and its reads work in, and the reads (the list of
// messages, a prescription's latest). Messages are written by the outbox sink
// (token-message-outbox.ts) and sent by the runner (token-message-runner.ts).
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AuditTrail } from '../audit/index.ts';
import type { Config } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import { NO_METRICS, type Metrics } from '../platform/metrics/metrics.ts';
import { decryptSecret } from '../platform/secrets.ts';
import type { Deps } from '../deps.ts';
import { isScidFormat } from '../pds/index.ts';
import type { TokenMessageOutbox } from './token-message-outbox.ts';
import { maskDestination } from './token-message-text.ts';
import { findLatestTokenMessage, findTokenMessages, type TokenMessageRow } from './token-messages-store.ts';

export interface TokenDeliveryContext {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, 'sms' | 'smtp'>;
  outbox: TokenMessageOutbox;
  metrics: Metrics;
  /** An attempt's outcome and its audit entry commit together through it. */
  unitOfWork: UnitOfWork;
  /** Token delivery's own (ERX_TOKEN_MESSAGE_TIMEOUT_MS, ERX_TOKEN_MESSAGE_POLL_MS). */
  settings: { timeoutMs: number; pollMs: number };
  /** Where a listing of messages (which prescriptions, which masked destinations) is noted. */
  audit: AuditTrail;
  /** Opens the stored destinations. */
  secretKey: Buffer;
  /** The token page's URL of a prescription, derived when a message is sent (never stored): the prescriptions feature's, handed over by features.ts. */
  tokenPageUrlOf: (prescriptionId: string) => Promise<string>;
}

export function createTokenDeliveryContext(
  deps: Pick<Deps, 'database' | 'clock' | 'logger' | 'config' | 'metrics' | 'secretKey'>,
  features: { outbox: TokenMessageOutbox; unitOfWork: UnitOfWork; audit: AuditTrail; tokenPageUrlOf: (prescriptionId: string) => Promise<string> },
): TokenDeliveryContext {
  const { config } = deps;
  return {
    db: deps.database,
    clock: deps.clock,
    logger: deps.logger,
    config,
    outbox: features.outbox,
    unitOfWork: features.unitOfWork,
    audit: features.audit,
    tokenPageUrlOf: features.tokenPageUrlOf,
    secretKey: deps.secretKey,
    metrics: deps.metrics ?? NO_METRICS,
    settings: { timeoutMs: config.tokenMessageTimeoutMs, pollMs: config.tokenMessagePollMs },
  };
}

export const TOKEN_MESSAGE_STATUSES = ['pending', 'sent', 'failed', 'kept'] as const;
export type TokenMessageStatus = (typeof TOKEN_MESSAGE_STATUSES)[number];

/** A message as operators and the portal see it: the destination masked, the body not shown. */
export interface TokenMessageView {
  id: string;
  prescription_id: string;
  /** The prescription's SCID; null while it is Pending (none assigned yet). */
  scid: string | null;
  channel: string;
  destination: string;
  status: TokenMessageStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  completed_at: string | null;
}

/** A stored destination in clear; '' once retention blanked it. */
export function destinationOf(row: Pick<TokenMessageRow, 'destination_encrypted'>, secretKey: Buffer): string {
  return row.destination_encrypted === '' ? '' : decryptSecret(row.destination_encrypted, secretKey);
}

function viewOf(row: TokenMessageRow & { scid: string | null }, secretKey: Buffer): TokenMessageView {
  return {
    id: row.id,
    prescription_id: row.prescription_id,
    scid: row.scid,
    channel: row.channel,
    destination: maskDestination(destinationOf(row, secretKey)),
    status: row.status as TokenMessageStatus,
    attempts: Number(row.attempts_made),
    last_error: row.last_error,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}

export class TokenDeliveryError extends Error {
  override name = 'TokenDeliveryError';
}

export interface TokenMessageListFilter {
  status?: string | undefined;
  prescriptionId?: string | undefined;
  scid?: string | undefined;
  limit?: number | undefined;
}

/** Newest first; `status` must be one of TOKEN_MESSAGE_STATUSES, `scid` have a SCID's form. Noted in the audit trail. */
export async function listTokenMessages(ctx: TokenDeliveryContext, filter: TokenMessageListFilter): Promise<TokenMessageView[]> {
  if (filter.status !== undefined && !(TOKEN_MESSAGE_STATUSES as readonly string[]).includes(filter.status)) {
    throw new TokenDeliveryError(`--status must be one of ${TOKEN_MESSAGE_STATUSES.join(', ')}, got "${filter.status}"`);
  }
  const limit = filter.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new TokenDeliveryError('--limit must be a whole number from 1 to 1000');
  const scid = filter.scid === undefined ? undefined : readScidFilter(filter.scid);
  const rows = await findTokenMessages(ctx.db, { status: filter.status, prescriptionId: filter.prescriptionId, scid, limit });
  await ctx.audit.noteAccess({ action: 'admin.deliveries_read', scid: scid ?? null, detail: { count: rows.length, endpoint: 'deliveries list' } });
  return rows.map((row) => viewOf(row, ctx.secretKey));
}

/** A SCID as the PDS assigns them (18 letters and digits, any case); anything else is refused, never looked up. */
function readScidFilter(text: string): string {
  const scid = text.trim().toUpperCase();
  if (!isScidFormat(scid)) throw new TokenDeliveryError(`--scid must be a SCID: 18 letters and digits, got ${JSON.stringify(text.slice(0, 40))}`);
  return scid;
}

/** The latest message of a prescription (what its portal page shows), if any. */
export async function latestTokenMessageOf(db: Kysely<Database>, secretKey: Buffer, prescriptionId: string): Promise<TokenMessageView | undefined> {
  const row = await findLatestTokenMessage(db, prescriptionId);
  return row && viewOf(row, secretKey);
}
