// SSO and the prescribing portal.
//
// `sso_tokens`: what POST /v1/sso minted, keyed by the SHA-256 of the token (the token itself
// is never stored), with the redirect_path and the reserved_1..3 it carried. A token is spent
// by setting `used_at`, in the transaction that opens the session, so it works once.
//
// `portal_sessions`: a signed-in prescriber, keyed by the SHA-256 of the cookie's value, so
// any instance serves it and a copy of the table opens no session. It carries the partner,
// organization and user of the SSO token, the reserved values every event it causes echoes,
// and the secret its forms' CSRF tokens are made from.
//
// `partners.frame_origins`: the origins (JSON list) allowed to frame the portal for that
// partner's users, i.e. the Content-Security-Policy frame-ancestors; '[]' refuses framing.
import { sql, type Kysely } from 'kysely';

async function createSsoTokens(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('redirect_path', 'text', (c) => c.notNull())
    .addColumn('reserved_1', 'text')
    .addColumn('reserved_2', 'text')
    .addColumn('reserved_3', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('sso_tokens_expiry_idx').on('sso_tokens').column('expires_at').execute();
}

async function createPortalSessions(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('portal_sessions')
    .addColumn('session_hash', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('partners.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('reserved_1', 'text')
    .addColumn('reserved_2', 'text')
    .addColumn('reserved_3', 'text')
    .addColumn('csrf_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('portal_sessions_last_seen_idx').on('portal_sessions').column('last_seen_at').execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('partners')
    .addColumn('frame_origins', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
    .execute();
  await createSsoTokens(db);
  await createPortalSessions(db);
}
