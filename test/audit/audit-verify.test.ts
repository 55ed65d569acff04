// `erx audit verify`: intact, it exits 0 with the count and the head hash; after any edit,
// removal or insertion made directly in the database it exits 1 naming the entry. The CLI
// runs as a separate process on the test's own database; every column's edit is shown
// through the service (the same walk), the rest through the command.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { verifyAuditChain } from '../../src/audit/index.ts';
import { loadConfig } from '../../src/config.ts';
import type { Deps } from '../../src/deps.ts';
import { buildFeatures, type Features } from '../../src/features.ts';
import { assembleDeps, closeDeps } from '../../src/runtime.ts';
import { createCliEnvironment, runErx, type CliEnvironment } from '../cli/cli-helpers.ts';

let cli: CliEnvironment;
let deps: Deps;
let features: Features;
const ENTRIES = 10;

beforeAll(async () => {
  cli = createCliEnvironment();
  deps = await assembleDeps(loadConfig(cli.env));
  features = buildFeatures(deps);
  for (let n = 1; n <= ENTRIES; n += 1) {
    await features.audit.noteAccess({ action: 'patient.read', organizationId: 'org-1', patientId: `patient-${n}`, detail: n % 2 ? { count: n } : {} });
  }
});
afterAll(async () => {
  if (deps) await closeDeps(deps);
  await cli.cleanup();
});

async function verify(): Promise<{ code: number; report: any; stdout: string }> {
  const result = await runErx(cli.env, ['audit', 'verify', '--json']);
  return { code: result.code, report: JSON.parse(result.stdout), stdout: result.stdout };
}

type Row = Record<string, unknown>;
const db = () => deps.database;

async function rowAt(seq: number): Promise<Row> {
  return (await db().selectFrom('audit_entries').selectAll().where('seq', '=', seq).executeTakeFirstOrThrow()) as Row;
}

/** Runs `check` with row `seq` as `tamper` left it, then puts the row back as it was. */
async function withTampered(seq: number, tamper: () => Promise<unknown>, check: () => Promise<void>): Promise<void> {
  const original = await rowAt(seq);
  await tamper();
  try {
    await check();
  } finally {
    await db().deleteFrom('audit_entries').where('seq', '=', seq).execute();
    await db().deleteFrom('audit_entries').where('seq', '=', original.seq as number).execute();
    await db().insertInto('audit_entries').values(original as never).execute();
  }
}

describe('erx audit verify', { timeout: 180_000 }, () => {
  it('exits 0 on an intact chain with the number of entries and the head hash', async () => {
    const head = await db().selectFrom('audit_chain').selectAll().executeTakeFirstOrThrow();
    const { code, report } = await verify();
    expect(code).toBe(0);
    expect(report).toMatchObject({ intact: true, checked: ENTRIES, head: { seq: ENTRIES, hash: head.last_hash }, broken: null });
    const text = await runErx(cli.env, ['audit', 'verify']);
    expect(text.stdout).toContain(`audit chain intact: ${ENTRIES} entries`);
    expect(text.stdout).toContain(`head hash: ${head.last_hash}`);
  });

  const COLUMNS = ['seq', 'recorded_at', 'action', 'outcome', 'actor_kind', 'partner_id', 'organization_id', 'user_id', 'operator', 'hpio', 'patient_id', 'prescription_scid', 'target_user_id', 'request_id', 'client_address', 'detail', 'previous_hash', 'hash'];
  it.each(COLUMNS)('names entry 4 when its %s is edited in the database', async (column) => {
    const value = column === 'seq' ? 1000 : column === 'detail' ? '{"count":99}' : column === 'outcome' ? 'refused' : `forged-${column}`;
    await withTampered(
      4,
      () => db().updateTable('audit_entries').set({ [column]: value } as never).where('seq', '=', 4).execute(),
      async () => {
        const result = await verifyAuditChain(features.audit);
        expect(result.intact).toBe(false);
        expect(result.broken).toMatchObject({ seq: 4 });
      },
    );
  });

  it('exits 1 naming an entry edited in the database', async () => {
    await withTampered(
      6,
      () => db().updateTable('audit_entries').set({ patient_id: 'someone-else' }).where('seq', '=', 6).execute(),
      async () => {
        const { code, report } = await verify();
        expect(code).toBe(1);
        expect(report).toMatchObject({ intact: false, checked: 5, broken: { seq: 6, problem: 'edited' } });
        const text = await runErx(cli.env, ['audit', 'verify']);
        expect(text.stdout).toMatch(/audit chain BROKEN at entry 6: entry 6 edited/);
      },
    );
  });

  it('exits 1 naming an entry removed from the middle', async () => {
    await withTampered(
      3,
      () => db().deleteFrom('audit_entries').where('seq', '=', 3).execute(),
      async () => {
        const { code, report } = await verify();
        expect(code).toBe(1);
        expect(report.broken).toMatchObject({ seq: 3, problem: 'removed' });
      },
    );
  });

  it('exits 1 naming the first entry of a tail removed behind the head', async () => {
    const tail = [await rowAt(9), await rowAt(10)];
    await db().deleteFrom('audit_entries').where('seq', '>=', 9).execute();
    try {
      const { code, report } = await verify();
      expect(code).toBe(1);
      expect(report.broken).toMatchObject({ seq: 9, problem: 'tail_removed' });
    } finally {
      await db().insertInto('audit_entries').values(tail as never).execute();
    }
  });

  it('exits 1 naming an entry inserted directly in the database', async () => {
    const copy = { ...(await rowAt(10)), seq: ENTRIES + 1, previous_hash: (await rowAt(10)).hash, patient_id: 'patient-forged' };
    await db().insertInto('audit_entries').values(copy as never).execute();
    try {
      const { code, report } = await verify();
      expect(code).toBe(1);
      expect(report.broken).toMatchObject({ seq: ENTRIES + 1, problem: 'inserted' });
    } finally {
      await db().deleteFrom('audit_entries').where('seq', '=', ENTRIES + 1).execute();
    }
  });

  it('holds again once every row is back as it was', async () => {
    const count = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM audit_entries`.execute(db());
    expect(Number(count.rows[0]!.n)).toBe(ENTRIES);
    const { code, report } = await verify();
    expect(code).toBe(0);
    expect(report.intact).toBe(true);
  });
});
