// Retention: entries older than ERX_AUDIT_RETENTION_YEARS go, in batches, the anchor moves to
// the last one removed, and the chain still verifies from there; younger entries stay.
import { describe, expect, it } from 'vitest';
import { pruneAuditTrail, runInAuditScope, verifyAuditChain } from '../../src/audit/index.ts';
import { useTestApp } from '../given.ts';
import { auditEntriesAfter, lastAuditSeq } from './audit-helpers.ts';

const YEAR_SECONDS = 365.25 * 86_400;
const operatorScope = { actor: { kind: 'operator' as const, operator: 'ops' }, hpio: null, requestId: 'req_prune', clientAddress: null };

describe('audit retention', () => {
  const { t } = useTestApp({});

  it('removes entries past the horizon only, moves the anchor, records the prune, and the chain still verifies', async () => {
    const start = await lastAuditSeq(t);
    const note = (patientId: string) => t.features.audit.noteAccess({ action: 'patient.read', organizationId: 'org-r', patientId });
    for (let n = 0; n < 3; n += 1) await note(`old-${n}`);
    t.clock.advanceSeconds(2 * YEAR_SECONDS);
    for (let n = 0; n < 2; n += 1) await note(`kept-${n}`);
    t.clock.advanceSeconds(6 * YEAR_SECONDS); // now the first three are 8 years old, the next two 6
    await note('recent');

    const dryRun = await runInAuditScope(operatorScope, () => pruneAuditTrail(t.features.audit, { dryRun: true }));
    expect(dryRun).toMatchObject({ dry_run: true, retention_years: 7, removed: start + 3 });
    expect(await lastAuditSeq(t)).toBe(start + 6);

    const pruned = await runInAuditScope(operatorScope, () => pruneAuditTrail(t.features.audit, { dryRun: false }));
    expect(pruned).toMatchObject({ dry_run: false, removed: start + 3, anchor: { seq: start + 3 } });
    const left = await auditEntriesAfter(t, 0);
    expect(left.map((e) => e.patient_id)).toEqual(['kept-0', 'kept-1', 'recent', null]);
    expect(left.at(-1)).toMatchObject({ action: 'admin.audit_pruned', actor_kind: 'operator', operator: 'ops', request_id: 'req_prune', detail: { count: start + 3 } });

    const verified = await verifyAuditChain(t.features.audit);
    expect(verified).toMatchObject({ intact: true, checked: 4, anchor: { seq: start + 3 } });

    // Nothing more is old enough: a second prune removes nothing and records nothing.
    const again = await pruneAuditTrail(t.features.audit, { dryRun: false });
    expect(again.removed).toBe(0);
    expect(await lastAuditSeq(t)).toBe(start + 7);
  });

  it('after a prune, a row put back before the anchor is named as inserted', async () => {
    const [first] = await auditEntriesAfter(t, 0);
    const forged = { ...first!, seq: 1, detail: null };
    await t.deps.database.insertInto('audit_entries').values(forged as never).execute();
    try {
      expect((await verifyAuditChain(t.features.audit)).broken).toMatchObject({ seq: 1, problem: 'inserted' });
    } finally {
      await t.deps.database.deleteFrom('audit_entries').where('seq', '=', 1).execute();
    }
    expect((await verifyAuditChain(t.features.audit)).intact).toBe(true);
  });
});
