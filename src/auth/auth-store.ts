// Queries behind token issuance and per-request authentication.
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database-schema.ts';
import { whenReady, type Awaitable } from '../platform/awaitable.ts';
import { precompileCachedQuery } from '../platform/db/precompiled-query.ts';

/** The secret a rotation replaced (its hash), and when it stops being accepted. */
export interface PreviousSecret {
  previous_secret_hash: string | null;
  previous_secret_expires_at: string | null;
}

export interface TokenCredentialsRow {
  partner_secret_hash: string | null;
  organization_secret_hash: string | null;
  partner_previous: PreviousSecret | null;
  organization_previous: PreviousSecret | null;
  allowed_scopes: string | null;
  organization_hpio: string | null;
  partner_enabled: number;
  user_enabled: number | null;
}

const SECRET_COLUMNS = ['secret_hash', 'previous_secret_hash', 'previous_secret_expires_at'] as const;

/** Everything /v1/token checks, in one round trip. Absent rows come back as nulls. */
export async function findTokenCredentials(
  db: Kysely<Database>,
  ids: { partnerId: string; organizationId: string; userId: string },
): Promise<TokenCredentialsRow> {
  const [partner, organization, enablement, user] = await Promise.all([
    db.selectFrom('partners').select(SECRET_COLUMNS).where('id', '=', ids.partnerId).executeTakeFirst(),
    db.selectFrom('organizations').select([...SECRET_COLUMNS, 'allowed_scopes', 'hpio']).where('id', '=', ids.organizationId).executeTakeFirst(),
    db
      .selectFrom('organization_partners')
      .select('partner_id')
      .where('organization_id', '=', ids.organizationId)
      .where('partner_id', '=', ids.partnerId)
      .executeTakeFirst(),
    db
      .selectFrom('users')
      .select('enabled')
      .where('id', '=', ids.userId)
      .where('organization_id', '=', ids.organizationId)
      .executeTakeFirst(),
  ]);
  return {
    partner_secret_hash: partner?.secret_hash ?? null,
    organization_secret_hash: organization?.secret_hash ?? null,
    partner_previous: partner ?? null,
    organization_previous: organization ?? null,
    allowed_scopes: organization?.allowed_scopes ?? null,
    organization_hpio: organization?.hpio ?? null,
    partner_enabled: enablement ? 1 : 0,
    user_enabled: user?.enabled ?? null,
  };
}

export interface RequestPrincipalRow {
  /** When the partner was (last) enabled for the organization: tokens issued before it are refused. */
  partner_enabled_at: string;
  organization_secret_hash: string;
  organization_previous_secret_hash: string | null;
  organization_previous_secret_expires_at: string | null;
  user_enabled: number;
  user_roles: string;
  validated_at: string | null;
  organization_hpio: string | null;
}

type PrincipalIds = { partnerId: string; organizationId: string; userId: string };

const requestPrincipal = precompileCachedQuery<PrincipalIds, RequestPrincipalRow>(
  { invalidatedBy: ['organizations', 'organization_partners', 'users'] },
  (db, param) =>
    db
      .selectFrom('organizations as o')
      .innerJoin('organization_partners as op', (join) =>
        join.onRef('op.organization_id', '=', 'o.id').on('op.partner_id', '=', param('partnerId')),
      )
      .innerJoin('users as u', (join) => join.onRef('u.organization_id', '=', 'o.id').on('u.id', '=', param('userId')))
      .select([
        'o.secret_hash as organization_secret_hash',
        'o.previous_secret_hash as organization_previous_secret_hash',
        'o.previous_secret_expires_at as organization_previous_secret_expires_at',
        'u.enabled as user_enabled',
        'u.roles as user_roles',
        'op.validated_at',
        'op.enabled_at as partner_enabled_at',
        'o.hpio as organization_hpio',
      ])
      .where('o.id', '=', param('organizationId')),
);

/**
 * The state one authenticated request depends on: the organization's secret, and the token's
 * user, still in the organization, and the partner still enabled there. Checked on every
 * request, so revoking any of them takes effect at once: on SQLite the result is kept only
 * until one of the three tables is written; elsewhere it is read each time.
 */
export function findRequestPrincipal(db: Kysely<Database>, ids: PrincipalIds): Awaitable<Readonly<RequestPrincipalRow> | undefined> {
  return whenReady(requestPrincipal(db, ids), (rows) => rows[0]);
}

/** Records the first validation; false when it was already recorded (another request came first). */
export async function markIntegrationValidated(
  db: Kysely<Database>,
  ids: { partnerId: string; organizationId: string },
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('organization_partners')
    .set({ validated_at: at })
    .where('organization_id', '=', ids.organizationId)
    .where('partner_id', '=', ids.partnerId)
    .where('validated_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A partner's secret hash and the one its last rotation replaced, for its own credentials (/v1/partner/). */
export async function findPartnerSecret(db: Kysely<Database>, partnerId: string): Promise<({ secret_hash: string | null } & PreviousSecret) | undefined> {
  return db.selectFrom('partners').select(SECRET_COLUMNS).where('id', '=', partnerId).executeTakeFirst();
}
