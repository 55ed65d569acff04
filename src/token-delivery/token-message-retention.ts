// Token delivery's retention step (registered in features.ts): a message finished (sent, failed
// or kept) more than ERX_RETENTION_TOKEN_MESSAGE_DAYS ago loses its destination (the patient's
// phone or e-mail, sealed under the secret key): it is blanked, the row stays, so `erx
// deliveries list` and the prescription's page still say what happened and when. (The row holds
// no token link: the message is composed when it is sent.)
// A pending message is never touched, whatever its age: it is still to be sent.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { countOf, DAY_SECONDS, secondsBefore, singleKindStep, type RetentionStep } from '../platform/db/retention-step.ts';

type Db = Kysely<Database>;

/** What a blanked column holds. */
export const BLANKED = '';

export function createTokenMessageRetentionStep(days: number): RetentionStep {
  const finishedBefore = (now: Date) => secondsBefore(now, days * DAY_SECONDS);
  return singleKindStep({
    name: 'token_message_destinations',
    table: 'token_messages',
    setting: 'ERX_RETENTION_TOKEN_MESSAGE_DAYS',
    cutoffs: (now) => ({ tokenMessagesFinished: finishedBefore(now) }),
    count: (db, now) => countOf(stillReadable(db, finishedBefore(now)).select((eb) => eb.fn.countAll<string>().as('n'))),
    batch: (trx, now, limit) => blankBatch(trx, finishedBefore(now), limit),
  });
}

/** Finished before `before`, and still holding a destination. */
function stillReadable(db: Db, before: string) {
  return db
    .selectFrom('token_messages')
    .where('status', '!=', 'pending')
    .where('completed_at', 'is not', null)
    .where('completed_at', '<', before)
    .where('destination_encrypted', '!=', BLANKED);
}

async function blankBatch(trx: Db, before: string, limit: number): Promise<number> {
  const result = await trx
    .updateTable('token_messages')
    .set({ destination_encrypted: BLANKED })
    .where('status', '!=', 'pending')
    .where('completed_at', '<', before)
    .where('destination_encrypted', '!=', BLANKED)
    .where('id', 'in', stillReadable(trx, before).select('id').limit(limit))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
