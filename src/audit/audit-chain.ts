// The chain that makes the audit trail tamper-evident. Each entry's hash is an HMAC, under a
// key derived from erx's secret key, over the previous entry's hash and the entry's own
// content; so an entry edited, removed or inserted in the database breaks the chain at that
// entry, and rewriting the chain from there needs the key, which the database does not hold.
// The walk is pure: it takes entries in seq order and names the first that does not fit.
import { createHmac } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { AuditEntriesTable } from '../platform/db/database-schema.ts';
import type { UnchainedEntry } from './audit-entry.ts';

export type StoredAuditEntry = Selectable<AuditEntriesTable>;
export const GENESIS_HASH = '0'.repeat(64);

export function deriveAuditChainKey(secretKey: Buffer): Buffer {
  return createHmac('sha256', secretKey).update('erx audit chain v1').digest();
}

/** The hash of entry `seq` with `entry`'s content, following `previousHash`. */
export function chainHash(key: Buffer, seq: number, previousHash: string, entry: UnchainedEntry): string {
  const content = [
    seq,
    entry.recorded_at,
    entry.action,
    entry.outcome,
    entry.actor_kind,
    entry.partner_id ?? null,
    entry.organization_id ?? null,
    entry.user_id ?? null,
    entry.operator ?? null,
    entry.hpio ?? null,
    entry.patient_id ?? null,
    entry.prescription_scid ?? null,
    entry.target_user_id ?? null,
    entry.request_id ?? null,
    entry.client_address ?? null,
    entry.detail ?? null,
  ];
  return createHmac('sha256', key).update(previousHash).update('\n').update(JSON.stringify(content)).digest('hex');
}

/** Chains `entries` after (`seq`, `hash`): each gets the next seq, the hash before it and its own. */
export function chainEntries(key: Buffer, after: { seq: number; hash: string }, entries: readonly UnchainedEntry[]): StoredAuditEntry[] {
  let { seq, hash } = after;
  return entries.map((entry) => {
    seq += 1;
    const previous = hash;
    hash = chainHash(key, seq, previous, entry);
    return { ...entry, seq, previous_hash: previous, hash } as StoredAuditEntry;
  });
}

export interface ChainBreak {
  /** The entry at which the chain breaks. */
  seq: number;
  problem: 'edited' | 'removed' | 'inserted' | 'tail_removed' | 'anchor_unproven' | 'known_head_missing';
  message: string;
}

/** Walks entries in seq order from the anchor; call `next` per entry, then `end` with the chain head. */
export class ChainWalk {
  private expectedSeq: number;
  private previousHash: string;
  checked = 0;
  broken: ChainBreak | undefined;

  constructor(
    private readonly key: Buffer,
    anchor: { seq: number; hash: string },
  ) {
    this.expectedSeq = anchor.seq + 1;
    this.previousHash = anchor.hash;
  }

  next(entry: StoredAuditEntry): boolean {
    if (this.broken) return false;
    const seq = Number(entry.seq);
    if (seq > this.expectedSeq) {
      const missing = seq - 1 === this.expectedSeq ? `entry ${this.expectedSeq}` : `entries ${this.expectedSeq} to ${seq - 1}`;
      return this.fail(this.expectedSeq, 'removed', `${missing} removed: the chain goes from ${this.expectedSeq - 1} to ${seq}`);
    }
    if (seq < this.expectedSeq) return this.fail(seq, 'inserted', `entry ${seq} inserted: it comes before the anchor or repeats a number`);
    if (chainHash(this.key, seq, entry.previous_hash, entry) !== entry.hash) {
      return this.fail(seq, 'edited', `entry ${seq} edited: its content no longer matches its hash`);
    }
    if (entry.previous_hash !== this.previousHash) {
      return this.fail(seq, 'inserted', `entry ${seq} inserted or replaced: it does not follow entry ${seq - 1}`);
    }
    this.expectedSeq = seq + 1;
    this.previousHash = entry.hash;
    this.checked += 1;
    return true;
  }

  end(head: { seq: number; hash: string }): ChainBreak | undefined {
    if (this.broken) return this.broken;
    const last = this.expectedSeq - 1;
    if (head.seq > last) this.fail(last + 1, 'tail_removed', `entries ${last + 1} to ${head.seq} removed: the chain's head is at ${head.seq}`);
    else if (head.seq < last || head.hash !== this.previousHash) this.fail(last, 'inserted', `entry ${last} does not match the chain's head (${head.seq})`);
    return this.broken;
  }

  private fail(seq: number, problem: ChainBreak['problem'], message: string): false {
    this.broken = { seq, problem, message };
    return false;
  }
}
