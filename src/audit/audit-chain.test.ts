// The chain's walk over entries as stored: it accepts an intact chain and names the first entry
// that was edited, removed or inserted, and a tail cut off behind the head.
import { describe, expect, it } from 'vitest';
import { ChainWalk, chainEntries, GENESIS_HASH, type StoredAuditEntry } from './audit-chain.ts';
import type { UnchainedEntry } from './audit-entry.ts';

const key = Buffer.alloc(32, 7);

function entry(n: number): UnchainedEntry {
  return { recorded_at: `2026-11-26T00:00:0${n % 10}.000Z`, action: 'patient.read', outcome: 'success', actor_kind: 'user', partner_id: 'p', organization_id: 'o', user_id: 'u', patient_id: `patient-${n}` };
}

function chain(count: number): StoredAuditEntry[] {
  return chainEntries(key, { seq: 0, hash: GENESIS_HASH }, Array.from({ length: count }, (_, i) => entry(i + 1)));
}

function walk(entries: StoredAuditEntry[], head = { seq: entries.at(-1)?.seq ?? 0, hash: entries.at(-1)?.hash ?? GENESIS_HASH }) {
  const w = new ChainWalk(key, { seq: 0, hash: GENESIS_HASH });
  for (const e of entries) if (!w.next(e)) break;
  return w.end(head);
}

describe('the audit chain', () => {
  it('accepts an intact chain and counts its entries', () => {
    const entries = chain(5);
    const w = new ChainWalk(key, { seq: 0, hash: GENESIS_HASH });
    for (const e of entries) expect(w.next(e)).toBe(true);
    expect(w.end({ seq: 5, hash: entries[4]!.hash })).toBeUndefined();
    expect(w.checked).toBe(5);
  });

  it.each([
    ['an edited column', (e: StoredAuditEntry[]) => (e[2] = { ...e[2]!, patient_id: 'someone-else' }), 3, 'edited'],
    ['an edited outcome', (e: StoredAuditEntry[]) => (e[3] = { ...e[3]!, outcome: 'refused' }), 4, 'edited'],
    ['a removed entry', (e: StoredAuditEntry[]) => e.splice(1, 1), 2, 'removed'],
    ['an entry forged with the next number and a copied hash', (e: StoredAuditEntry[]) => e.splice(2, 0, { ...e[1]!, seq: 3 }), 3, 'edited'],
  ] as const)('names the first broken entry: %s', (_name, tamper, seq, problem) => {
    const entries = chain(5);
    const head = { seq: 5, hash: entries[4]!.hash };
    tamper(entries);
    expect(walk(entries, head)).toMatchObject({ seq, problem });
  });

  it('tells a tail removed behind the head', () => {
    const entries = chain(5);
    expect(walk(entries.slice(0, 3), { seq: 5, hash: entries[4]!.hash })).toMatchObject({ seq: 4, problem: 'tail_removed' });
  });

  it('tells a chain rewritten without the key', () => {
    const entries = chain(3);
    const forged = chainEntries(Buffer.alloc(32, 8), { seq: 0, hash: GENESIS_HASH }, [entry(1), entry(2), entry(3)]);
    expect(walk(forged, { seq: 3, hash: entries[2]!.hash })).toMatchObject({ seq: 1, problem: 'edited' });
  });
});
