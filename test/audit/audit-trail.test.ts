// The audit trail as a sink of the unit of work: an entry commits with its change and not
// without it; reads noted in a scope wait for its flush (or ride in a change's transaction),
// come back to the scope if that transaction rolls back, and are written at once outside any.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditTrail, runInAuditScope, currentAuditScope, auditRecords, type AuditTrail } from '../../src/audit/index.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { createUnitOfWork, recordKind, type UnitOfWork } from '../../src/platform/db/unit-of-work.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createTestDatabase, type TestDatabase } from '../test-app.ts';

let database: TestDatabase;
let trail: AuditTrail;
let unitOfWork: UnitOfWork;
beforeAll(async () => {
  database = await createTestDatabase();
  await migrateToLatest(database.handle);
  trail = createAuditTrail({ database: database.handle, clock: new ManualClock(), secretKey: Buffer.alloc(32, 1) });
  unitOfWork = createUnitOfWork(database.handle, [trail], createLogger('silent'));
});
afterAll(() => database.drop());

async function entries() {
  const rows = await database.handle.selectFrom('audit_entries').select(['seq', 'action', 'patient_id', 'actor_kind', 'request_id']).orderBy('seq').execute();
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

const scope = { actor: { kind: 'user', partnerId: 'p', organizationId: 'o', userId: 'u' }, hpio: '8003620000000000', requestId: 'req-1', clientAddress: '127.0.0.1' } as const;

describe('the audit trail', () => {
  it('commits an entry with its change, numbered after the last, and none for a change that rolled back', async () => {
    const before = (await entries()).length;
    await unitOfWork.run(async (work) => work.record(auditRecords, { action: 'patient.create', patientId: 'a' }));
    await expect(
      unitOfWork.run(async (work) => {
        work.record(auditRecords, { action: 'patient.create', patientId: 'b' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const after = await entries();
    expect(after.slice(before)).toEqual([{ seq: before + 1, action: 'patient.create', patient_id: 'a', actor_kind: 'system', request_id: null }]);
  });

  it('writes a read noted outside any scope at once', async () => {
    const before = (await entries()).length;
    await trail.noteAccess({ action: 'patient.read', patientId: 'c' });
    expect((await entries()).slice(before)).toMatchObject([{ action: 'patient.read', patient_id: 'c' }]);
  });

  it("keeps a scope's reads until its flush, then writes them with the scope's actor and request", async () => {
    const before = (await entries()).length;
    await runInAuditScope(scope, async () => {
      await trail.noteAccess({ action: 'patient.read', patientId: 'd' });
      expect((await entries()).length).toBe(before);
      await trail.flushPending(currentAuditScope()!);
    });
    expect((await entries()).slice(before)).toEqual([{ seq: before + 1, action: 'patient.read', patient_id: 'd', actor_kind: 'user', request_id: 'req-1' }]);
  });

  it("carries a scope's waiting reads in a change's transaction, and gives them back when it rolls back", async () => {
    const before = (await entries()).length;
    await runInAuditScope(scope, async () => {
      await trail.noteAccess({ action: 'hi.ihi_search', patientId: null });
      // A sink after the trail's fails: the transaction rolls back after the trail wrote.
      const failing = { kind: recordKind<string>('failing'), write: async () => Promise.reject(new Error('the commit failed')), afterCommit: () => undefined };
      const failingWork = createUnitOfWork(database.handle, [trail, failing], createLogger('silent'));
      await expect(
        failingWork.run(async (work) => {
          work.record(auditRecords, { action: 'patient.create', patientId: 'e' });
          work.record(failing.kind, 'x');
        }),
      ).rejects.toThrow('the commit failed');
      expect(currentAuditScope()!.pending).toHaveLength(1);
      await unitOfWork.run(async (work) => work.record(auditRecords, { action: 'patient.create', patientId: 'f' }));
      expect(currentAuditScope()!.pending).toHaveLength(0);
    });
    expect((await entries()).slice(before).map((e) => [e.seq - before, e.action, e.patient_id])).toEqual([
      [1, 'hi.ihi_search', null],
      [2, 'patient.create', 'f'],
    ]);
  });
});

describe('reads of many requests at once', () => {
  it('are appended in one transaction, and each request waits for it', async () => {
    const appended: number[] = [];
    const batching = createAuditTrail({ database: database.handle, clock: new ManualClock(), secretKey: Buffer.alloc(32, 1) });
    batching.onAppended = (count) => appended.push(count);
    const before = (await entries()).length;
    await Promise.all(
      ['g', 'h', 'i'].map((patientId, n) =>
        runInAuditScope({ ...scope, requestId: `req-batch-${n}` }, async () => {
          await batching.noteAccess({ action: 'patient.read', patientId });
          await batching.flushPending(currentAuditScope()!);
          // Resolved only once committed: its own entry is there.
          expect((await entries()).some((entry) => entry.patient_id === patientId)).toBe(true);
        }),
      ),
    );
    expect(appended).toEqual([3]);
    expect((await entries()).slice(before).map((entry) => [entry.seq - before, entry.request_id])).toEqual([
      [1, 'req-batch-0'],
      [2, 'req-batch-1'],
      [3, 'req-batch-2'],
    ]);
  });

  it('fail together: every request of a batch that cannot be written is refused', async () => {
    const failing = createAuditTrail({ database: database.handle, clock: new ManualClock(), secretKey: Buffer.alloc(32, 1) });
    await database.handle.schema.alterTable('audit_entries').renameTo('audit_entries_away').execute();
    try {
      const outcomes = await Promise.allSettled(
        ['j', 'k'].map((patientId) =>
          runInAuditScope(scope, async () => {
            await failing.noteAccess({ action: 'patient.read', patientId });
            await failing.flushPending(currentAuditScope()!);
          }),
        ),
      );
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    } finally {
      await database.handle.schema.alterTable('audit_entries_away').renameTo('audit_entries').execute();
    }
  });
});
