// The mfa feature's retention steps (registered in features.ts): ceremony challenges once they
// have expired (a challenge lives 5 minutes and is spent by its first answer), and wrong codes
// once they are older than any lockout can look back. Each batch repeats its condition on the
// rows it deletes, so on PostgreSQL a row another instance deleted first is not counted twice.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { changedRows, countOf, secondsBefore, singleKindStep, type RetentionStep } from '../platform/db/retention-step.ts';
import { LOCK_SECONDS, LOCK_WINDOW_SECONDS } from './mfa-service.ts';

type Db = Kysely<Database>;

export function createMfaRetentionSteps(): RetentionStep[] {
  const failuresBefore = (now: Date) => secondsBefore(now, LOCK_WINDOW_SECONDS + LOCK_SECONDS);
  const challengesBefore = (now: Date) => now.toISOString();
  return [
    singleKindStep({
      name: 'mfa_challenges',
      table: 'mfa_challenges',
      cutoffs: (now) => ({ mfaChallengesExpiredBefore: challengesBefore(now) }),
      count: (db, now) => countOf(db.selectFrom('mfa_challenges').select((eb) => eb.fn.countAll<string>().as('n')).where('expires_at', '<', challengesBefore(now))),
      batch: (trx, now, limit) => deleteChallengesBatch(trx, challengesBefore(now), limit),
    }),
    singleKindStep({
      name: 'mfa_failures',
      table: 'mfa_failures',
      cutoffs: (now) => ({ mfaFailuresBefore: failuresBefore(now) }),
      count: (db, now) => countOf(db.selectFrom('mfa_failures').select((eb) => eb.fn.countAll<string>().as('n')).where('failed_at', '<', failuresBefore(now))),
      batch: (trx, now, limit) => deleteFailuresBatch(trx, failuresBefore(now), limit),
    }),
  ];
}

async function deleteChallengesBatch(trx: Db, expiredBefore: string, limit: number): Promise<number> {
  const stale = trx.selectFrom('mfa_challenges').select('session_hash').where('expires_at', '<', expiredBefore).limit(limit);
  const result = await trx.deleteFrom('mfa_challenges').where('expires_at', '<', expiredBefore).where('session_hash', 'in', stale).executeTakeFirst();
  return changedRows(result);
}

async function deleteFailuresBatch(trx: Db, before: string, limit: number): Promise<number> {
  const stale = trx.selectFrom('mfa_failures').select('id').where('failed_at', '<', before).limit(limit);
  const result = await trx.deleteFrom('mfa_failures').where('failed_at', '<', before).where('id', 'in', stale).executeTakeFirst();
  return changedRows(result);
}
