// Reading the audit trail in tests: the entries a test's actions added, and a scan of the whole
// table for values that must never be in it (raw identifiers, demographics).
import type { Selectable } from 'kysely';
import { expect } from 'vitest';
import type { AuditEntriesTable } from '../../src/platform/db/database-schema.ts';
import type { TestApp } from '../test-app.ts';

export type AuditEntryRow = Omit<Selectable<AuditEntriesTable>, 'detail'> & { detail: Record<string, unknown> | null };

/** The chain's head: take it before the actions a test checks. */
export async function lastAuditSeq(t: Pick<TestApp, 'deps'>): Promise<number> {
  const row = await t.deps.database.selectFrom('audit_chain').select('last_seq').where('id', '=', 1).executeTakeFirstOrThrow();
  return Number(row.last_seq);
}

/** The entries after `seq`, oldest first, with their detail parsed. */
export async function auditEntriesAfter(t: Pick<TestApp, 'deps'>, seq: number): Promise<AuditEntryRow[]> {
  const rows = await t.deps.database.selectFrom('audit_entries').selectAll().where('seq', '>', seq).orderBy('seq').execute();
  return rows.map((row) => ({ ...row, seq: Number(row.seq), detail: row.detail === null ? null : (JSON.parse(row.detail) as Record<string, unknown>) }));
}

/** Exactly one entry of `action` after `seq`; returns it. */
export async function theOneAuditEntry(t: Pick<TestApp, 'deps'>, seq: number, action: string): Promise<AuditEntryRow> {
  const entries = (await auditEntriesAfter(t, seq)).filter((entry) => entry.action === action);
  expect(entries, `exactly one ${action} entry`).toHaveLength(1);
  return entries[0]!;
}

/** Fails naming the column of any audit entry that holds one of `values` (compared without spaces, case-insensitively). */
export async function expectNoneOfInAuditTrail(t: Pick<TestApp, 'deps'>, values: readonly string[]): Promise<void> {
  const rows = await t.deps.database.selectFrom('audit_entries').selectAll().execute();
  const wanted = values.filter((value) => value.length >= 3).map((value) => value.replace(/\s+/g, '').toLowerCase());
  const found: string[] = [];
  for (const row of rows) {
    for (const [column, cell] of Object.entries(row)) {
      const text = String(cell ?? '').replace(/\s+/g, '').toLowerCase();
      for (const value of wanted) if (text.includes(value)) found.push(`entry ${String(row.seq)} ${column} holds ${value}`);
    }
  }
  expect(rows.length, 'the scan needs entries to scan').toBeGreaterThan(0);
  expect(found).toEqual([]);
}

/** Runs `work` while no audit entry can be written (the table is moved away), then puts it back. */
export async function whileAuditTrailUnwritable<T>(t: Pick<TestApp, 'deps'>, work: () => Promise<T>): Promise<T> {
  await t.deps.database.schema.alterTable('audit_entries').renameTo('audit_entries_away').execute();
  try {
    return await work();
  } finally {
    await t.deps.database.schema.alterTable('audit_entries_away').renameTo('audit_entries').execute();
  }
}

/** The security alert buckets of the current minute from `clientAddress`, with the counts waiting in memory written. */
export async function securityAlertsNow(t: TestApp, clientAddress: string) {
  await t.features.securityAlerts.flush();
  const minute = `${t.clock.now().toISOString().slice(0, 16)}Z`;
  const rows = await t.deps.database.selectFrom('security_alerts').selectAll().where('minute', '=', minute).where('client_address', '=', clientAddress).orderBy('endpoint').orderBy('reason').execute();
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}
