// Queries of each partner's webhook endpoint: its URL, secrets and whether it is enabled (the
// webhook_* columns of partners).
import type { Kysely, Updateable } from 'kysely';
import type { Database, PartnersTable } from '../platform/db/database-schema.ts';

export interface WebhookEndpointRow {
  id: string;
  webhook_url: string | null;
  webhook_enabled: number;
  webhook_secret_encrypted: string | null;
  webhook_secret_issued_at: string | null;
  webhook_previous_secret_encrypted: string | null;
  webhook_previous_secret_expires_at: string | null;
  /** A partner's change of URL waiting until webhook_pending_url_at (webhook-endpoint-change.ts). */
  webhook_pending_url: string | null;
  webhook_pending_url_at: string | null;
}

/** The URL deliveries go to at `now`: a partner's waiting change once its time has come, else webhook_url. */
export function effectiveUrlOf(row: Pick<WebhookEndpointRow, 'webhook_url' | 'webhook_pending_url' | 'webhook_pending_url_at'>, now: Date): string | null {
  return row.webhook_pending_url && row.webhook_pending_url_at && row.webhook_pending_url_at <= now.toISOString() ? row.webhook_pending_url : row.webhook_url;
}

export interface PendingEndpointChange {
  url: string;
  /** When deliveries start going to `url`, unless an operator confirms it earlier. */
  takes_effect_at: string;
}

/** The change still waiting at `now`, if any. */
export function pendingChangeOf(row: WebhookEndpointRow, now: Date): PendingEndpointChange | null {
  if (!row.webhook_pending_url || !row.webhook_pending_url_at || row.webhook_pending_url_at <= now.toISOString()) return null;
  return { url: row.webhook_pending_url, takes_effect_at: row.webhook_pending_url_at };
}

export async function findWebhookEndpoint(db: Kysely<Database>, partnerId: string): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom('partners')
    .select([
      'id',
      'webhook_url',
      'webhook_enabled',
      'webhook_secret_encrypted',
      'webhook_secret_issued_at',
      'webhook_previous_secret_encrypted',
      'webhook_previous_secret_expires_at',
      'webhook_pending_url',
      'webhook_pending_url_at',
    ])
    .where('id', '=', partnerId)
    .executeTakeFirst();
}

export type WebhookEndpointUpdate = Pick<
  Updateable<PartnersTable>,
  | 'webhook_url'
  | 'webhook_enabled'
  | 'webhook_secret_encrypted'
  | 'webhook_secret_issued_at'
  | 'webhook_previous_secret_encrypted'
  | 'webhook_previous_secret_expires_at'
  | 'webhook_pending_url'
  | 'webhook_pending_url_at'
>;

export async function updateWebhookEndpoint(db: Kysely<Database>, partnerId: string, update: WebhookEndpointUpdate): Promise<void> {
  await db.updateTable('partners').set(update).where('id', '=', partnerId).execute();
}

/** How many of the partner's deliveries are in each status (reached through its events' index). */
export async function countDeliveriesByStatus(db: Kysely<Database>, partnerId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('webhook_events as e')
    .innerJoin('webhook_deliveries as d', 'd.event_id', 'e.id')
    .select(['d.status', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('e.partner_id', '=', partnerId)
    .groupBy('d.status')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}
