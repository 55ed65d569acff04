// The audit trail: one append-only, hash-chained table of every access to identifiers and
// patient data and every change (DESIGN.md decision 19). `seq` is handed out under the lock
// of the one row of audit_chain, so the chain has no gaps and two instances append in turn;
// that row also holds the chain's head (to tell a removed tail) and where retention last
// cut it (the anchor the first remaining entry links to). Entries hold ids and masked
// identifiers only, never demographics.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_entries')
    // bigint on PostgreSQL: a busy service outgrows 2^31 entries within its seven years.
    .addColumn('seq', sql`bigint`, (c) => c.primaryKey())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text')
    .addColumn('organization_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('operator', 'text')
    .addColumn('hpio', 'text')
    .addColumn('patient_id', 'text')
    .addColumn('prescription_scid', 'text')
    .addColumn('target_user_id', 'text')
    .addColumn('request_id', 'text')
    .addColumn('client_address', 'text')
    .addColumn('detail', 'text')
    .addColumn('previous_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  // "Who touched this patient / this user / in this organization", newest first, by seq. Each
  // index costs every append, so only the lookups `erx audit list` offers have one, and the
  // target columns' indexes leave out the entries without one (partial). A time window is a
  // range of seq: entries are appended in time order.
  await db.schema.createIndex('audit_entries_organization_idx').on('audit_entries').columns(['organization_id', 'seq']).execute();
  for (const column of ['patient_id', 'user_id', 'target_user_id', 'prescription_scid'] as const) {
    await db.schema.createIndex(`audit_entries_${column}_idx`).on('audit_entries').columns([column, 'seq']).where(sql.ref(column), 'is not', null).execute();
  }
  await db.schema
    .createTable('audit_chain')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last_seq', sql`bigint`, (c) => c.notNull())
    .addColumn('last_hash', 'text', (c) => c.notNull())
    .addColumn('anchor_seq', sql`bigint`, (c) => c.notNull())
    .addColumn('anchor_hash', 'text', (c) => c.notNull())
    .execute();
  const genesis = '0'.repeat(64);
  await sql`INSERT INTO audit_chain (id, last_seq, last_hash, anchor_seq, anchor_hash) VALUES (1, 0, ${genesis}, 0, ${genesis})`.execute(db);
}
