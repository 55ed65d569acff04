// The audit trail's tables (see database-schema.ts and migrations/0013-audit-trail.ts).
import { integer, oneOf, text, time } from './table-columns.ts';
import { AUDIT_ACTOR_KINDS, AUDIT_OUTCOMES } from './stored-values.ts';

/**
 * One access or change. Ids and masked identifiers only: `detail` is JSON text of the
 * entry's allowed facts (search path, duration, masked numbers, reasons), never demographics.
 * `hash` is keyed over the entry's content and `previous_hash`, the hash of entry seq - 1.
 */
export const auditEntriesColumns = {
  seq: integer(),
  recorded_at: time(),
  action: text(),
  outcome: oneOf(AUDIT_OUTCOMES),
  actor_kind: oneOf(AUDIT_ACTOR_KINDS),
  partner_id: text().orNull(),
  organization_id: text().orNull(),
  user_id: text().orNull(),
  /** The OS user name of an operator's `erx` command. */
  operator: text().orNull(),
  hpio: text().orNull(),
  patient_id: text().orNull(),
  prescription_scid: text().orNull(),
  target_user_id: text().orNull(),
  request_id: text().orNull(),
  client_address: text().orNull(),
  detail: text().orNull(),
  previous_hash: text(),
  hash: text(),
} as const;

/** The chain's one row (id 1): its head, and the anchor retention left (the hash the first remaining entry links to). */
export const auditChainColumns = {
  id: integer(),
  last_seq: integer(),
  last_hash: text(),
  anchor_seq: integer(),
  anchor_hash: text(),
} as const;

/**
 * Refusals an outsider can cause, one row per minute, client address, endpoint and reason
 * (migrations/0046-security-alerts.ts): kept apart from the chain, for their own retention.
 */
export const securityAlertsColumns = {
  minute: text(),
  client_address: text(),
  endpoint: text(),
  reason: text(),
  count: integer(),
  first_at: time(),
  last_at: time(),
  /** The bucket's first refusal's claimed ids: as sent when well-formed, else a short hash (`#` and 12 hex digits). */
  partner_id: text().orNull(),
  organization_id: text().orNull(),
  user_id: text().orNull(),
} as const;
