// The webhook tables (see database-schema.ts): the outbox, its deliveries and their attempts.
import { integer, oneOf, text, time } from './table-columns.ts';
import { DELIVERY_ENDED_BECAUSE, DELIVERY_REASONS, DELIVERY_STATUSES, OUTCOME_CLASSES } from './stored-values.ts';

/** The webhook outbox: each event's envelope, written with the change it reports. */
export const webhookEventsColumns = {
  /** `evt_` + 32 hex: the envelope's event_id. */
  id: text(),
  event_type: text(),
  partner_id: text(),
  organization_id: text(),
  /** The envelope as JSON text, exactly the bytes every delivery sends. */
  body: text(),
  created_at: time(),
  /** W3C traceparent of the span active when the event was written (traces on); its attempts' spans link to it. */
  traceparent: text().orNull(),
  /**
   * PostgreSQL: the writing transaction's id (pg_current_xact_id(), by the column default), so
   * the event feed lists only events no in-flight transaction can still precede. Null on SQLite.
   */
  commit_xid: integer().orNull().withDefault(),
} as const;

/** One run of up to 3 attempts of one event: the event's own, or an operator's replay. */
export const webhookDeliveriesColumns = {
  id: text(),
  event_id: text(),
  partner_id: text(),
  reason: oneOf(DELIVERY_REASONS),
  /** Who asked for a replay; null for the event's own delivery. */
  requested_by: text().orNull(),
  status: oneOf(DELIVERY_STATUSES),
  attempts_made: integer().withDefault(),
  next_attempt_at: time(),
  lease_owner: text().orNull(),
  lease_expires_at: time().orNull(),
  /** Bumped by every claim; an outcome is written only with the token its claim got. */
  fencing_token: integer().withDefault(),
  last_outcome: oneOf(OUTCOME_CLASSES).orNull(),
  last_status_code: integer().orNull(),
  created_at: time(),
  completed_at: time().orNull(),
  /** Why it ended without its attempts (migration 0075): DELIVERY_ENDED_BECAUSE; null when its attempts ended it. */
  ended_because: oneOf(DELIVERY_ENDED_BECAUSE).orNull(),
} as const;

/** Every attempt of every delivery, as it happened. */
export const webhookAttemptsColumns = {
  delivery_id: text(),
  attempt_number: integer(),
  event_id: text(),
  started_at: time(),
  duration_ms: integer(),
  outcome: oneOf(OUTCOME_CLASSES),
  status_code: integer().orNull(),
  /** The first 4 KiB of the receiver's answer. */
  response_body: text().orNull(),
  /** What went wrong below HTTP (the error's message), for the operator. */
  detail: text().orNull(),
  /** The dispatcher (host, process) that made the attempt. */
  sent_by: text(),
  /** 1 when the attempt went out through the address guard: only then do partners see its response body. */
  address_guarded: integer().withDefault(),
} as const;
