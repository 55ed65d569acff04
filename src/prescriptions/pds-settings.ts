// How prescriptions reach the PDS: the port, the waits, the job's outbox and runner identity
// (pds-submission.ts uses them; features.ts builds them).
import type { Logger } from 'pino';
import type { PdsPort } from '../pds/index.ts';
import type { PdsSubmissionOutbox } from './pds-submission-outbox.ts';

export interface PdsSettings {
  port: PdsPort;
  /** How long a create waits for the first attempt's answer (ERX_PDS_WAIT_MS). */
  waitMs: number;
  /** One call's bound (ERX_PDS_TIMEOUT_MS): the lease covers it. */
  timeoutMs: number;
  outbox: PdsSubmissionOutbox;
  /** Who claims in this process (lease owner). */
  runnerId: string;
  logger: Logger;
  /** Sandbox fault injection (ERX_SANDBOX_KILL_AFTER_PDS_SUBMIT): runs once the PDS accepted, before erx commits. */
  afterAccepted?: () => void;
  /** Attempts under way in this process (a runner's stop waits for them). */
  inFlight: Set<Promise<void>>;
}
