// Token delivery: the context its runner and its reads work in, and the reads (the list of
// messages, a prescription's latest). Messages are written by the outbox sink
// (token-message-outbox.ts) and sent by the runner (token-message-runner.ts).
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import { NO_METRICS, type Metrics } from '../platform/metrics/metrics.ts';
import { decryptSecret } from '../platform/secrets.ts';
import type { Deps } from '../deps.ts';
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
  /** Opens the stored destinations. */
  secretKey: Buffer;
  /** The token page's URL of a prescription, derived when a message is sent (never stored): the prescriptions feature's, handed over by features.ts. */
  tokenPageUrlOf: (prescriptionId: string) => Promise<string>;
}

export function createTokenDeliveryContext(
  deps: Pick<Deps, 'database' | 'clock' | 'logger' | 'config' | 'metrics' | 'secretKey'>,
  features: { outbox: TokenMessageOutbox; unitOfWork: UnitOfWork; tokenPageUrlOf: (prescriptionId: string) => Promise<string> },
): TokenDeliveryContext {
  const { config } = deps;
  return {
    db: deps.database,
    clock: deps.clock,
    logger: deps.logger,
    config,
    outbox: features.outbox,
    unitOfWork: features.unitOfWork,
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

function viewOf(row: TokenMessageRow, secretKey: Buffer): TokenMessageView {
  return {
    id: row.id,
    prescription_id: row.prescription_id,
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

/** Newest first; `status` must be one of TOKEN_MESSAGE_STATUSES. */
export async function listTokenMessages(ctx: TokenDeliveryContext, filter: { status?: string; prescriptionId?: string; limit?: number }): Promise<TokenMessageView[]> {
  if (filter.status !== undefined && !(TOKEN_MESSAGE_STATUSES as readonly string[]).includes(filter.status)) {
    throw new TokenDeliveryError(`--status must be one of ${TOKEN_MESSAGE_STATUSES.join(', ')}, got "${filter.status}"`);
  }
  const limit = filter.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new TokenDeliveryError('--limit must be a whole number from 1 to 1000');
  const rows = await findTokenMessages(ctx.db, { status: filter.status, prescriptionId: filter.prescriptionId, limit });
  return rows.map((row) => viewOf(row, ctx.secretKey));
}

/** The latest message of a prescription (what its portal page shows), if any. */
export async function latestTokenMessageOf(db: Kysely<Database>, secretKey: Buffer, prescriptionId: string): Promise<TokenMessageView | undefined> {
  const row = await findLatestTokenMessage(db, prescriptionId);
  return row && viewOf(row, secretKey);
}
