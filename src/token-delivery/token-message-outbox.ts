// The token-message outbox: a sibling of the webhook outbox (webhooks/webhook-outbox.ts), one
// more kind of record of the unit of work. A change that issues a token records its message;
// the sink writes it in the change's transaction, so a message exists exactly when the change
// committed, and after the commit wakes this process's runner. Without a channel's settings
// the message is written as `kept`: nothing will send it, `erx deliveries list` shows it.
import { EventEmitter } from 'node:events';
import { recordKind, type RecordSink } from '../platform/db/unit-of-work.ts';
import { newId } from '../platform/ids.ts';
import type { Deps } from '../deps.ts';
import { composeTokenMessage, type TokenMessageRequest } from './token-message-text.ts';
import { insertTokenMessages } from './token-messages-store.ts';

export const tokenMessages = recordKind<TokenMessageRequest>('token message');

export interface TokenMessageOutbox extends RecordSink<TokenMessageRequest> {
  /** Told after a commit that wrote messages to send: the runner of this process claims them at once. */
  readonly wakeups: EventEmitter;
}

export function createTokenMessageOutbox(deps: Pick<Deps, 'clock' | 'config'>): TokenMessageOutbox {
  const wakeups = new EventEmitter();
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
          destination: request.destination,
          body: composeTokenMessage(request),
          status: configured(request.channel) ? 'pending' : 'kept',
          next_attempt_at: now,
          created_at: now,
          completed_at: configured(request.channel) ? null : now,
        })),
      );
    },
    afterCommit(records) {
      if (records.some((request) => configured(request.channel))) wakeups.emit('wake');
    },
  };
}
