// Two instances on one PostgreSQL database append to the chain at once (reads noted on their
// own and changes in units of work): the chain has no gap, no number twice, and verifies.
// SQLite has one process per database file, so the race exists on PostgreSQL only.
import { describe, expect, it } from 'vitest';
import { auditRecords, verifyAuditChain } from '../../src/audit/index.ts';
import type { TestApp } from '../test-app.ts';
import { TEST_DATABASE_URL } from '../test-app.ts';
import { useTwoInstances } from '../given.ts';
import { auditEntriesAfter, lastAuditSeq } from './audit-helpers.ts';

const PER_INSTANCE = 200;
const IN_FLIGHT = 8;

/** `count` appends from `app`, `IN_FLIGHT` at a time: every other one a read, the rest changes. */
async function appendFrom(app: TestApp, tag: string, count: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const n = next++;
      const patientId = `${tag}-${n}`;
      if (n % 2 === 0) await app.features.audit.noteAccess({ action: 'patient.read', patientId });
      else await app.features.onboarding.unitOfWork.run(async ({ record }) => record(auditRecords, { action: 'patient.update', patientId }));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

describe('the audit chain with two instances writing at once', () => {
  const pair = useTwoInstances();

  it.skipIf(!TEST_DATABASE_URL)('keeps seqs contiguous and verifies after 2 x 200 concurrent appends (PostgreSQL; SQLite has one writer process)', async () => {
    expect(pair.second).not.toBe(pair.first);
    const before = await lastAuditSeq(pair.first);
    await Promise.all([appendFrom(pair.first, 'first', PER_INSTANCE), appendFrom(pair.second, 'second', PER_INSTANCE)]);
    const entries = await auditEntriesAfter(pair.first, before);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 2 * PER_INSTANCE }, (_, i) => before + i + 1));
    expect(new Set(entries.map((e) => e.patient_id)).size).toBe(2 * PER_INSTANCE);
    // Both instances' entries interleave: they really wrote at the same time.
    const firstHalf = entries.slice(0, PER_INSTANCE).map((e) => e.patient_id!.split('-')[0]);
    expect(new Set(firstHalf)).toEqual(new Set(['first', 'second']));
    const verified = await verifyAuditChain(pair.second.features.audit);
    expect(verified).toMatchObject({ intact: true, broken: null, head: { seq: before + 2 * PER_INSTANCE } });
  });
});
