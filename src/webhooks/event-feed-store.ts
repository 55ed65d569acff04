// The event feed's one query: a partner's events of one organization, in commit order, after a
// position. How "commit order" is had on each database is explained in event-feed.ts.
import { sql } from 'kysely';
import type { DatabaseHandle } from '../platform/db/database.ts';

/** Where an event stands in the feed: its commit position (PostgreSQL xid, SQLite rowid), then its id. */
export interface FeedPosition {
  position: string;
  id: string;
}

export interface FeedRow extends FeedPosition {
  /** The envelope as stored: exactly the bytes its deliveries sent. */
  body: string;
}

export async function listFeedEvents(
  db: DatabaseHandle,
  owner: { organizationId: string; partnerId: string },
  after: FeedPosition | undefined,
  limit: number,
): Promise<FeedRow[]> {
  if (db.kind === 'postgres') {
    const afterClause = after ? sql`and (e.commit_xid > ${after.position}::bigint or (e.commit_xid = ${after.position}::bigint and e.id > ${after.id}))` : sql``;
    const { rows } = await sql<FeedRow>`
      select e.id, e.body, e.commit_xid::text as position
      from webhook_events e
      where e.organization_id = ${owner.organizationId} and e.partner_id = ${owner.partnerId}
        and e.commit_xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
        ${afterClause}
      order by e.commit_xid, e.id
      limit ${limit}`.execute(db);
    return rows;
  }
  const afterClause = after ? sql`and e.rowid > ${Number(after.position)}` : sql``;
  const { rows } = await sql<{ id: string; body: string; position: number }>`
    select e.id, e.body, e.rowid as position
    from webhook_events e
    where e.organization_id = ${owner.organizationId} and e.partner_id = ${owner.partnerId}
      ${afterClause}
    order by e.rowid
    limit ${limit}`.execute(db);
  return rows.map((row) => ({ id: row.id, body: row.body, position: String(row.position) }));
}
