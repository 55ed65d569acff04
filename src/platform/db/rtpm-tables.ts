// The real-time prescription monitoring table (see database-schema.ts, migration 0065).
import { text, time } from './table-columns.ts';

/**
 * One RTPM check (or attestation) made while a prescriber writes a monitored medicine for a
 * patient: what the check answered, which notifications the prescriber opened, and the
 * acknowledgement or attestation that let the prescription be written. The notifications' text
 * is kept here for the form being filled in (the portal shows it without JavaScript), never in
 * the audit trail; rows are removed a day after the check (src/rtpm/rtpm-retention.ts).
 */
export const rtpmChecksColumns = {
  id: text(),
  organization_id: text(),
  patient_id: text(),
  prescriber_user_id: text(),
  /** The practice state whose system was checked. */
  state: text(),
  /** checked, unavailable, or not_connected (ERX_RTPM=none: the prescriber checks the state's system and attests). */
  outcome: text(),
  /** green, amber or red for a check; null otherwise. */
  level: text().orNull(),
  /** The notifications, as JSON [{severity, text, reference}]. */
  notifications: text(),
  /** The indexes of the notifications the prescriber opened, as JSON. */
  opened: text(),
  acknowledged_at: time().orNull(),
  attested_at: time().orNull(),
  /** Why the prescriber continued when the check was unavailable, in their words. */
  reason: text().orNull(),
  created_at: time(),
} as const;
