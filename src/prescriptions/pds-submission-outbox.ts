// The PDS submission outbox: one more kind of record of the unit of work (DESIGN decision 24).
// A create of an electronic prescription records its submission; the sink writes the job row
// in the create's transaction, so a submission exists exactly when the Pending prescription
// committed, and is never a call inside that transaction. The first attempt is the create's
// own (it waits ERX_PDS_WAIT_MS for the answer, pds-submission.ts); the runner retries.
import { EventEmitter } from 'node:events';
import { recordKind, type RecordSink } from '../platform/db/unit-of-work.ts';
import type { Clock } from '../platform/clock.ts';
import type { ReservedValues } from './prescription-events.ts';
import { insertPdsSubmission } from './pds-submission-store.ts';

export interface PdsSubmissionRequest {
  prescriptionId: string;
  organizationId: string;
  /** reserved_1..3 of the create: the prescription.created event carries them once the PDS accepted it. */
  reserved: ReservedValues;
  /** The partner whose values `reserved` are (prescription-events.ts): the event carries them to it alone. */
  actingPartnerId: string | null;
}

/** event_metadata as stored: the reserved values with the partner they belong to. */
export interface StoredEventMetadata extends ReservedValues {
  /** Absent in rows written before it was kept: then the values go to no one. */
  acting_partner_id?: string | null;
}

export const pdsSubmissions = recordKind<PdsSubmissionRequest>('PDS submission');

export interface PdsSubmissionOutbox extends RecordSink<PdsSubmissionRequest> {
  /** 'settled' with a prescription id: its submission ended (accepted, refused, expired) in this process. */
  readonly events: EventEmitter;
}

export function createPdsSubmissionOutbox(deps: { clock: Clock; config: { pdsBudgetMs: number } }): PdsSubmissionOutbox {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  return {
    kind: pdsSubmissions,
    events,
    async write(trx, records) {
      const now = deps.clock.now();
      const deadline = new Date(now.getTime() + deps.config.pdsBudgetMs).toISOString();
      for (const request of records) {
        await insertPdsSubmission(trx, {
          id: request.prescriptionId,
          organization_id: request.organizationId,
          status: 'pending',
          next_attempt_at: now.toISOString(),
          deadline_at: deadline,
          lease_owner: null,
          lease_expires_at: null,
          event_metadata: JSON.stringify({ ...request.reserved, acting_partner_id: request.actingPartnerId } satisfies StoredEventMetadata),
          last_error: null,
          created_at: now.toISOString(),
          completed_at: null,
        });
      }
    },
    // The create that wrote it makes the first attempt itself; the runner's poll finds the rest.
    afterCommit() {},
  };
}
