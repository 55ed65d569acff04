// The event feed: GET /v1/organizations/{organization_id}/events lists the calling partner's
// events of that organization, in commit order, with exactly the envelopes its webhooks sent,
// and a cursor to continue from. A partner whose receiver was down reads what it missed here.
//
// Why the feed cannot skip an event. A cursor "after id N" is only safe when no event can
// later appear before N. On PostgreSQL ids, sequence values and timestamps are taken before
// commit: a transaction that started first and commits last makes its event visible after a
// reader already moved past it. So each event keeps the id of the transaction that wrote it
// (webhook_events.commit_xid = pg_current_xact_id(), 64 bits, never wraps), and the feed lists
// only events whose transaction id is below pg_snapshot_xmin(pg_current_snapshot()): the oldest
// transaction still in flight. Every transaction below it has finished (committed or rolled
// back), so no event can ever appear at or before a position the feed has handed out; an event
// of a transaction still running is held back until it ends. Events are ordered by
// (commit_xid, id): one transaction's events appear together. A long transaction anywhere in
// the cluster delays the feed (never skips). SQLite has one writer at a time, so insertion
// order is commit order: the position there is the rowid (retention removes old events only,
// so a rowid is not handed out twice below a cursor in use; erx runs no VACUUM, which could
// renumber it, and its backups copy pages, keeping it).
import type { Principal } from '../auth/index.ts';
import { invalidRequest, type ValidationIssue } from '../platform/http/api-error.ts';
import { listFeedEvents, type FeedPosition } from './event-feed-store.ts';
import type { WebhooksContext } from './webhooks-service.ts';

export const FEED_LIMITS = { default: 50, max: 100 } as const;

export interface FeedQuery {
  after?: string;
  limit?: string;
}

export interface FeedPage {
  /** Each event's envelope, exactly as delivered. */
  events: unknown[];
  /** Pass as `after` to continue; null only when nothing was ever listed (start again without it). */
  next: string | null;
  /** More events are listable now (else poll again later with `next`). */
  has_more: boolean;
}

const INVALID_QUERY = 'Invalid query parameters provided';
const CURSOR = /^(\d{1,19})\.(evt_[0-9a-f]{32})$/;

export function encodeFeedCursor(position: FeedPosition): string {
  return Buffer.from(`${position.position}.${position.id}`).toString('base64url');
}

export function decodeFeedCursor(cursor: string): FeedPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,120}$/.test(cursor)) return undefined;
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? { position: match[1]!, id: match[2]! } : undefined;
}

function readFeedQuery(query: FeedQuery, issues: ValidationIssue[]): { limit: number; after: FeedPosition | undefined } {
  if (issues.length > 0) throw invalidRequest(`${INVALID_QUERY}: ${issues.map((issue) => `${issue.field} ${issue.message}`).join('; ')}`);
  const limit = query.limit === undefined ? FEED_LIMITS.default : /^\d{1,3}$/.test(query.limit) ? Number(query.limit) : 0;
  if (limit < 1 || limit > FEED_LIMITS.max) throw invalidRequest(`${INVALID_QUERY}: limit must be a whole number from 1 to ${FEED_LIMITS.max}`);
  if (query.after === undefined) return { limit, after: undefined };
  const after = decodeFeedCursor(query.after);
  if (!after) throw invalidRequest(`${INVALID_QUERY}: after is not a cursor this feed gave (pass next of the previous page unchanged)`);
  return { limit, after };
}

/** The caller's partner's events of the caller's organization (the route checked the path's), after the cursor; noted as read. */
export async function listOrganizationEvents(
  ctx: WebhooksContext,
  caller: Pick<Principal, 'organizationId' | 'partnerId'>,
  query: { value: FeedQuery; issues: ValidationIssue[] },
): Promise<FeedPage> {
  const { limit, after } = readFeedQuery(query.value, query.issues);
  // One more than the page: whether it is there says whether more are listable now.
  const rows = await listFeedEvents(ctx.db, caller, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const events = page.map((row) => JSON.parse(row.body) as { data?: { patient_id?: unknown } });
  const patientIds = patientIdsOf(events);
  await ctx.audit.noteAccess({
    action: 'webhook.events_read',
    organizationId: caller.organizationId,
    // The one patient the page named is the entry's (erx audit list --patient finds it); every one is in the detail.
    patientId: patientIds.length === 1 ? patientIds[0]! : null,
    detail: { count: page.length, ...(patientIds.length > 0 ? { patientIds } : {}) },
  });
  return {
    events,
    next: last ? encodeFeedCursor(last) : after ? encodeFeedCursor(after) : null,
    has_more: rows.length > limit,
  };
}

/** The patients the envelopes name (their data.patient_id), each once, in the order first named. */
function patientIdsOf(events: readonly { data?: { patient_id?: unknown } }[]): string[] {
  const ids = new Set<string>();
  for (const event of events) if (typeof event.data?.patient_id === 'string') ids.add(event.data.patient_id);
  return [...ids];
}
