// What an operator does with the audit trail (`erx audit verify|list|prune`; the export is in
// audit-fhir.ts): walk the chain and name the first entry edited, removed or inserted; find
// who touched a patient, a user or an organization, newest first; remove entries past the
// retention horizon, moving the chain's anchor so the walk still holds.
import { ChainWalk, GENESIS_HASH, type ChainBreak, type StoredAuditEntry } from './audit-chain.ts';
import { isAuditAction, AUDIT_ACTIONS } from './audit-actions.ts';
import { entryOf } from './audit-entry.ts';
import { currentAuditScope } from './audit-scope.ts';
import type { AuditTrail } from './audit-trail.ts';
import {
  appendAuditEntries,
  deleteAuditEntriesThrough,
  findAuditEntries,
  findAuditChainPoint,
  findAuditEntriesAfter,
  findChainEnds,
  findFirstAuditEntryFrom,
  type ChainPoint,
} from './audit-store.ts';

/** A mistake in what the operator asked for; the CLI prints it as one line. */
export class AuditError extends Error {
  override name = 'AuditError';
}

/** Entries read per query while walking the chain. */
const WALK_PAGE = 2_000;

export interface ChainVerified {
  intact: boolean;
  /** Entries checked from the anchor on. */
  checked: number;
  anchor: ChainPoint;
  head: ChainPoint;
  broken: ChainBreak | null;
}

/**
 * Walks every stored entry in seq order from the anchor (rows before it count as inserted),
 * then compares the end with the chain's head. Entries appended meanwhile (other instances
 * keep writing) are walked too: the head is read again until the walk has reached it.
 *
 * The anchor row is not keyed, so it proves nothing by itself: an anchor other than the genesis
 * must be the one the last chained prune entry names, or entries were removed from the start
 * without `erx audit prune`. `knownHead` (a head the operator kept outside the database) must
 * still be in the chain with its hash, or have been pruned by such an entry: that catches a
 * trail removed or replaced whole.
 */
export async function verifyAuditChain(
  trail: AuditTrail,
  onProgress?: (checked: number, total: number) => void,
  knownHead?: ChainPoint,
): Promise<ChainVerified> {
  let { anchor, head } = await findChainEnds(trail.db);
  const walk = new ChainWalk(trail.chainKey, anchor);
  let last = Number.MIN_SAFE_INTEGER;
  let namedAnchor: { seq: number; hash?: string } | undefined;
  const feed = (page: StoredAuditEntry[]): boolean => {
    for (const entry of page) {
      last = entry.seq;
      if (!walk.next(entry)) return false;
      if (entry.action === 'admin.audit_pruned') namedAnchor = anchorNamedBy(entry) ?? namedAnchor;
    }
    onProgress?.(walk.checked, Math.max(head.seq - anchor.seq, walk.checked));
    return page.length === WALK_PAGE;
  };
  while (!walk.broken) {
    if (feed(await findAuditEntriesAfter(trail.db, last, WALK_PAGE))) continue;
    if (walk.broken) break;
    ({ anchor, head } = await findChainEnds(trail.db));
    if (head.seq <= last) break;
    const more = await findAuditEntriesAfter(trail.db, last, WALK_PAGE);
    if (more.length === 0) break;
    feed(more);
  }
  let broken = walk.end(head) ?? null;
  if (broken && broken.seq > head.seq) ({ anchor, head } = await findChainEnds(trail.db));
  if (broken && broken.seq > head.seq) {
    broken = { seq: broken.seq, problem: 'inserted', message: `entry ${broken.seq} inserted: the chain's head is at ${head.seq}` };
  }
  broken ??= unprovenAnchor(anchor, namedAnchor) ?? (knownHead ? await missingKnownHead(trail, knownHead, anchor) : null);
  return { intact: broken === null, checked: walk.checked, anchor, head, broken };
}

/** The anchor a prune entry names: its detail's anchor, or (entries written before it had one) the end of its range. */
function anchorNamedBy(entry: StoredAuditEntry): { seq: number; hash?: string } | undefined {
  const detail = entry.detail === null ? {} : (JSON.parse(entry.detail) as { anchor?: ChainPoint; subjectId?: string });
  if (detail.anchor) return detail.anchor;
  const range = /^\d+-(\d+)$/.exec(detail.subjectId ?? '');
  return range ? { seq: Number(range[1]) } : undefined;
}

function unprovenAnchor(anchor: ChainPoint, named: { seq: number; hash?: string } | undefined): ChainBreak | null {
  if (anchor.seq === 0 && anchor.hash === GENESIS_HASH) return null;
  if (named && named.seq === anchor.seq && (named.hash === undefined || named.hash === anchor.hash)) return null;
  return {
    seq: anchor.seq,
    problem: 'anchor_unproven',
    message: `the chain starts after entry ${anchor.seq}, and no prune entry names that anchor: entries up to ${anchor.seq} were removed without erx audit prune`,
  };
}

async function missingKnownHead(trail: AuditTrail, known: ChainPoint, anchor: ChainPoint): Promise<ChainBreak | null> {
  if (known.seq <= anchor.seq) return null; // pruned, by the prune the anchor's check proved
  const stored = await findAuditChainPoint(trail.db, known.seq);
  if (stored?.hash === known.hash) return null;
  const what = stored ? 'is stored with another hash' : 'is not stored';
  return { seq: known.seq, problem: 'known_head_missing', message: `the head you kept, entry ${known.seq}, ${what}: the trail was replaced or cut back (a restore names the head it replaced: erx audit list --action admin.database_restore)` };
}

/** `<seq>:<hash>`, as `erx audit verify` prints a head. */
export function readChainPoint(option: string, text: string): ChainPoint {
  const match = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text.trim());
  if (!match) throw new AuditError(`${option} must be <seq>:<hash> as erx audit verify prints the head (e.g. 1042:9f86d0…), got "${text}"`);
  return { seq: Number(match[1]), hash: match[2]! };
}

export interface AuditListInput {
  organization?: string | undefined;
  patient?: string | undefined;
  user?: string | undefined;
  action?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  limit?: string | undefined;
}

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 10_000;

export interface AuditEntryView extends Omit<StoredAuditEntry, 'detail'> {
  detail: Record<string, unknown> | null;
}

/** The entries matching the operator's filters, newest first; a bad filter is refused whole. */
export async function listAuditEntries(trail: AuditTrail, input: AuditListInput): Promise<AuditEntryView[]> {
  if (input.action !== undefined && !isAuditAction(input.action)) {
    throw new AuditError(`unknown action "${input.action}"; one of: ${Object.keys(AUDIT_ACTIONS).join(', ')}`);
  }
  const since = readTime('--since', input.since);
  const until = readTime('--until', input.until);
  if (since !== undefined && until !== undefined && since >= until) throw new AuditError('--since must be before --until');
  const filter = { organizationId: input.organization, patientId: input.patient, userId: input.user, action: input.action, since, until };
  const defined = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
  const rows = await findAuditEntries(trail.db, defined, readLimit(input.limit));
  await trail.noteAccess({ action: 'admin.audit_read', organizationId: input.organization ?? null, patientId: input.patient ?? null, detail: { count: rows.length, endpoint: 'audit list' } });
  return rows.map(viewOf);
}

export function viewOf(row: StoredAuditEntry): AuditEntryView {
  return { ...row, detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>) };
}

/** An ISO-8601 time as stored (UTC, milliseconds), so it compares with recorded_at as text. */
export function readTime(option: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const time = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/.test(text) ? new Date(text) : undefined;
  if (!time || Number.isNaN(time.getTime())) throw new AuditError(`${option} must be an ISO-8601 time such as 2026-11-26 or 2026-11-26T09:30:00Z, got "${text}"`);
  return time.toISOString();
}

function readLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIST_LIMIT;
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1 || Number(text) > MAX_LIST_LIMIT) {
    throw new AuditError(`--limit must be a whole number from 1 to ${MAX_LIST_LIMIT}, got "${text}"`);
  }
  return Number(text);
}

/** Entries removed per transaction: short transactions, so appenders wait little for the chain's row. */
const PRUNE_BATCH = 5_000;

export interface AuditPruned {
  dry_run: boolean;
  retention_years: number;
  /** Entries recorded before this time go. */
  horizon: string;
  removed: number;
  /** Where the chain now starts (the last entry removed). */
  anchor: ChainPoint;
}

/**
 * Removes the entries recorded before the retention horizon, oldest first, in batches; each
 * batch moves the anchor to its last entry and records its own admin.audit_pruned entry in
 * the same transaction. Stops at the first entry recorded at or after the horizon, so an
 * entry newer than the horizon never goes even if an older one follows it.
 */
export async function pruneAuditTrail(trail: AuditTrail, options: { dryRun: boolean }): Promise<AuditPruned> {
  const horizonDate = new Date(trail.clock.now().getTime());
  horizonDate.setUTCFullYear(horizonDate.getUTCFullYear() - trail.retentionYears);
  const horizon = horizonDate.toISOString();
  const { anchor, head } = await findChainEnds(trail.db);
  const firstKept = await findFirstAuditEntryFrom(trail.db, horizon);
  const through = firstKept ? firstKept.seq - 1 : head.seq;
  const result = { dry_run: options.dryRun, retention_years: trail.retentionYears, horizon, removed: 0, anchor };
  if (options.dryRun || through <= anchor.seq) return { ...result, removed: options.dryRun ? Math.max(0, through - anchor.seq) : 0 };
  let from = anchor.seq + 1;
  while (from <= through) {
    const removed = await trail.db.transaction().execute(async (trx) => {
      const { count, anchor: moved } = await deleteAuditEntriesThrough(trx, through, from, PRUNE_BATCH);
      const detail = { count, subjectId: `${from}-${Math.min(through, from + PRUNE_BATCH - 1)}`, ...(moved ? { anchor: moved } : {}) };
      const event = { action: 'admin.audit_pruned' as const, detail };
      await appendAuditEntries(trx, trail.chainKey, [entryOf(event, currentAuditScope(), trail.clock.now().toISOString())]);
      return count;
    });
    trail.onAppended?.(1);
    result.removed += removed;
    from += PRUNE_BATCH;
  }
  return { ...result, anchor: (await findChainEnds(trail.db)).anchor };
}
