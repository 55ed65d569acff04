// Prescriber MFA (issue 39, DESIGN decision 26). A user's factors: passkeys (WebAuthn public
// keys, with their signature counter) and TOTP secrets (AES-256-GCM ciphertext, with the last
// time step used, so a code works once); their single-use recovery codes (SHA-256 only); the
// WebAuthn challenges and pending TOTP secrets of a session (single use, 5 minutes); the
// wrong codes counted per user for the lockout. An organization's `mfa_policy` is `required`
// or `optional` (null: the mode's default); a session notes when its factor was presented; a
// user's `mfa_reset_at` says their factors were reset (they are told at next sign-in).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('mfa_policy', 'text').execute();
  await db.schema.alterTable('portal_sessions').addColumn('factor_presented_at', 'text').execute();
  await db.schema.alterTable('users').addColumn('mfa_reset_at', 'text').execute();
  await db.schema
    .createTable('mfa_factors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.unique())
    .addColumn('public_key', 'text')
    .addColumn('sign_count', 'integer')
    .addColumn('transports', 'text')
    .addColumn('totp_secret_encrypted', 'text')
    .addColumn('totp_last_step', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('mfa_factors_user_idx').on('mfa_factors').columns(['organization_id', 'user_id']).execute();
  await db.schema
    .createTable('mfa_recovery_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('mfa_recovery_codes_user_idx').on('mfa_recovery_codes').columns(['organization_id', 'user_id']).execute();
  await db.schema
    .createTable('mfa_challenges')
    .addColumn('session_hash', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('mfa_challenges_pk', ['session_hash', 'purpose'])
    .execute();
  await db.schema
    .createTable('mfa_failures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('failed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mfa_failures_user_idx').on('mfa_failures').columns(['organization_id', 'user_id', 'failed_at']).execute();
}
