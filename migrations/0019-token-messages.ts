// Token messages: each prescription token sent (or kept) to a patient or pharmacy, written by
// the unit of work in the transaction of the change that issued the token, then claimed by a
// runner under a lease (owner + expiry) with a fencing token, as webhook deliveries are.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('token_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('prescription_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    // 'SMS' or 'EMAIL'
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    // 'pending', 'sent', 'failed', or 'kept' (no channel configured)
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts_made', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('fencing_token', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('provider_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('token_messages_due_idx').on('token_messages').columns(['next_attempt_at']).where(sql.ref('status'), '=', 'pending').execute();
  await db.schema.createIndex('token_messages_prescription_idx').on('token_messages').columns(['prescription_id', 'created_at']).execute();
}
