// Security alerts: refused credentials and other refusals an outsider can cause, aggregated one
// row per minute, client address, endpoint and reason with a count (issue 38 item 3). They live
// apart from the 7-year audit chain, with their own retention (ERX_RETENTION_SECURITY_ALERT_DAYS),
// so a flood of refusals grows neither the chain nor anything kept for seven years. The claimed
// ids are those of the bucket's first refusal: well-formed ids as sent, malformed ones only as a
// short hash.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('security_alerts')
    // The minute the refusals fell in, as ISO-8601 text cut to the minute (2026-11-28T23:42Z).
    .addColumn('minute', 'text', (c) => c.notNull())
    // '' when the address is unknown (a command, not a request).
    .addColumn('client_address', 'text', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('count', sql`bigint`, (c) => c.notNull())
    .addColumn('first_at', 'text', (c) => c.notNull())
    .addColumn('last_at', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text')
    .addColumn('organization_id', 'text')
    .addColumn('user_id', 'text')
    .addPrimaryKeyConstraint('security_alerts_pk', ['minute', 'client_address', 'endpoint', 'reason'])
    .execute();
  // Retention deletes by age: the oldest minutes first.
  await db.schema.createIndex('security_alerts_last_at_idx').on('security_alerts').column('last_at').execute();
}
