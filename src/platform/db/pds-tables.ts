// The sandbox PDS's tables (see database-schema.ts and src/pds/pds-simulator.ts).
import { integer, json, text, time } from './table-columns.ts';

/** Each script the sandbox PDS accepted (migration 0059), by its SCID; unique_id is erx's id, the idempotency key. */
export const pdsSimulatorScriptsColumns = {
  scid: text(),
  unique_id: text(),
  /** 'active', 'cancelled' or 'ceased'. */
  status: text(),
  supplies_authorised: integer(),
  supplies_dispensed: integer(),
  last_dispensed_at: time().orNull(),
  tokens: json(),
  content: json(),
  submitted_at: time(),
} as const;

/** Each prescription's submission to the PDS (migration 0060): a leased, fenced job, retried until deadline_at. */
export const pdsSubmissionsColumns = {
  id: text(),
  organization_id: text(),
  /** 'pending', 'accepted', 'refused', 'expired' (unreachable past its deadline) or 'withdrawn'. */
  status: text(),
  attempts_made: integer().withDefault(),
  next_attempt_at: time(),
  deadline_at: time(),
  lease_owner: text().orNull(),
  lease_expires_at: time().orNull(),
  fencing_token: integer().withDefault(),
  event_metadata: json(),
  last_error: text().orNull(),
  created_at: time(),
  completed_at: time().orNull(),
} as const;
