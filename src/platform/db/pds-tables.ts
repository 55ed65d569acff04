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
