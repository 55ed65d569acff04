// The token-message outbox: one more kind of record of the unit of work, on the delivery
// toolkit. A change that issues a token records its message; the sink writes it in the
// change's transaction, so a message exists exactly when the change committed, and after the
// commit wakes this process's runner (the toolkit's wake-up after commit, keyed by channel). Without a channel's settings
// the message is written as `kept`: nothing will send it, `erx deliveries list` shows it.
// The row holds no token link and its destination only sealed under the secret key: the runner
// composes the message when it sends it (token-message-runner.ts).
import { recordKind, type RecordSink } from '../platform/db/unit-of-work.ts';
import { DeliveryWakeups } from '../platform/delivery/index.ts';
import { newId } from '../platform/ids.ts';
import type { Deps } from '../deps.ts';
import { encryptSecret } from '../platform/secrets.ts';
import type { TokenMessageRequest } from './token-message-text.ts';
import { insertTokenMessages } from './token-messages-store.ts';

export const tokenMessages = recordKind<TokenMessageRequest>('token message');

export interface TokenMessageOutbox extends RecordSink<TokenMessageRequest> {
  /** Told after a commit that wrote messages to send: the runner of this process claims them at once. */
  readonly wakeups: DeliveryWakeups;
}

export function createTokenMessageOutbox(deps: Pick<Deps, 'clock' | 'config' | 'secretKey'>): TokenMessageOutbox {
  // In-process only: other instances find these messages by their poll.
  const wakeups = new DeliveryWakeups(undefined, () => {});
  const configured = (channel: TokenMessageRequest['channel']) => (channel === 'SMS' ? deps.config.sms !== undefined : deps.config.smtp !== undefined);
  return {
    kind: tokenMessages,
    wakeups,
    async write(trx, records) {
      const now = deps.clock.now().toISOString();
      await insertTokenMessages(
        trx,
        records.map((request) => ({
          id: newId(),
          prescription_id: request.prescriptionId,
          organization_id: request.organizationId,
          channel: request.channel,
          destination_encrypted: encryptSecret(request.destination, deps.secretKey),
          prescriber_name: request.prescriberName,
          status: configured(request.channel) ? 'pending' : 'kept',
          next_attempt_at: now,
          created_at: now,
          completed_at: configured(request.channel) ? null : now,
        })),
      );
    },
    afterCommit(records) {
      wakeups.committed([...new Set(records.filter((request) => configured(request.channel)).map((request) => request.channel))]);
    },
  };
}
