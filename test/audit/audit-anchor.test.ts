// The chain's anchor row is not keyed, so it proves nothing by itself (issue 38 item 2). The
// attack: with write access to the database, remove the oldest entries (or all of them) and
// point the anchor at the last one removed; the walk from there holds. Refused: an anchor other
// than the genesis must be the one the last chained prune entry names, and a head the operator
// kept outside the database must still be in the chain. A genuine prune still verifies.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneAuditTrail, runInAuditScope, verifyAuditChain } from '../../src/audit/index.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { auditEntriesAfter, lastAuditSeq } from './audit-helpers.ts';

const YEAR_SECONDS = 365.25 * 86_400;
const GENESIS = '0'.repeat(64);
const operatorScope = { actor: { kind: 'operator' as const, operator: 'ops' }, hpio: null, requestId: 'req_anchor', clientAddress: null };

describe('the audit anchor', () => {
  // A fresh database per case: each one tampers with the whole chain.
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({});
  });
  afterEach(() => t.close());
  const db = () => t.deps.database;
  const note = (patientId: string) => t.features.audit.noteAccess({ action: 'patient.read', organizationId: 'org-a', patientId });
  const chainRow = () => db().selectFrom('audit_chain').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();

  /** The attack: entries up to `through` deleted, the anchor moved to the last of them. */
  async function cutFromStart(through: number): Promise<void> {
    const last = await db().selectFrom('audit_entries').select('hash').where('seq', '=', through).executeTakeFirstOrThrow();
    await db().deleteFrom('audit_entries').where('seq', '<=', through).execute();
    await db().updateTable('audit_chain').set({ anchor_seq: through, anchor_hash: last.hash }).where('id', '=', 1).execute();
  }

  it('refuses an anchor moved past entries removed from the start, naming it', async () => {
    for (let n = 0; n < 6; n += 1) await note(`p-${n}`);
    const head = await lastAuditSeq(t);
    expect((await verifyAuditChain(t.features.audit)).intact).toBe(true);
    await cutFromStart(head - 3);
    const verified = await verifyAuditChain(t.features.audit);
    expect(verified.intact).toBe(false);
    expect(verified.broken).toMatchObject({ seq: head - 3, problem: 'anchor_unproven' });
    expect(verified.broken!.message).toContain('no prune entry names that anchor');
  });

  it('refuses the whole trail removed with the anchor at the head', async () => {
    for (let n = 0; n < 3; n += 1) await note(`p-${n}`);
    const head = await lastAuditSeq(t);
    await cutFromStart(head);
    expect(await auditEntriesAfter(t, 0)).toEqual([]);
    const verified = await verifyAuditChain(t.features.audit);
    expect(verified.broken).toMatchObject({ seq: head, problem: 'anchor_unproven' });
  });

  it('a trail reset to the genesis verifies alone, and is refused against the head the operator kept', async () => {
    for (let n = 0; n < 3; n += 1) await note(`p-${n}`);
    const kept = (await verifyAuditChain(t.features.audit)).head;
    expect((await verifyAuditChain(t.features.audit, undefined, kept)).intact).toBe(true);
    await db().deleteFrom('audit_entries').execute();
    await db().updateTable('audit_chain').set({ last_seq: 0, last_hash: GENESIS, anchor_seq: 0, anchor_hash: GENESIS }).where('id', '=', 1).execute();
    expect((await verifyAuditChain(t.features.audit)).intact).toBe(true); // the database alone cannot tell
    const verified = await verifyAuditChain(t.features.audit, undefined, kept);
    expect(verified.broken).toMatchObject({ seq: kept.seq, problem: 'known_head_missing' });
  });

  it('a genuine prune names its anchor and verifies, against a kept head it removed too; moving the anchor further is refused', async () => {
    for (let n = 0; n < 4; n += 1) await note(`old-${n}`);
    const keptBefore = (await verifyAuditChain(t.features.audit)).head;
    t.clock.advanceSeconds(8 * YEAR_SECONDS);
    for (let n = 0; n < 3; n += 1) await note(`new-${n}`);
    const pruned = await runInAuditScope(operatorScope, () => pruneAuditTrail(t.features.audit, { dryRun: false }));
    const chain = await chainRow();
    expect(pruned.anchor).toEqual({ seq: Number(chain.anchor_seq), hash: chain.anchor_hash });
    const entry = (await auditEntriesAfter(t, 0)).at(-1)!;
    expect(entry).toMatchObject({ action: 'admin.audit_pruned', detail: { anchor: pruned.anchor } });
    expect(await verifyAuditChain(t.features.audit, undefined, keptBefore)).toMatchObject({ intact: true, broken: null });

    // The prune entry names anchor A; cutting further than A is the same attack again.
    await cutFromStart(pruned.anchor.seq + 2);
    expect((await verifyAuditChain(t.features.audit)).broken).toMatchObject({ problem: 'anchor_unproven' });
  });

  it('a prune entry edited to name another anchor breaks the chain at that entry', async () => {
    for (let n = 0; n < 2; n += 1) await note(`old-${n}`);
    t.clock.advanceSeconds(8 * YEAR_SECONDS);
    await note('new');
    const pruned = await runInAuditScope(operatorScope, () => pruneAuditTrail(t.features.audit, { dryRun: false }));
    const head = await lastAuditSeq(t);
    await cutFromStart(pruned.anchor.seq + 1);
    const forged = JSON.stringify({ count: 1, anchor: { seq: pruned.anchor.seq + 1, hash: (await chainRow()).anchor_hash } });
    await db().updateTable('audit_entries').set({ detail: forged }).where('seq', '=', head).execute();
    expect((await verifyAuditChain(t.features.audit)).broken).toMatchObject({ seq: head, problem: 'edited' });
  });
});
