// Named prepared statements on PostgreSQL (src/platform/db/postgres-named-statements.ts): a
// registered text is prepared once per connection and then only executed; any other text runs
// as before. Runs whenever a PostgreSQL answers, in both suites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { openDatabase } from '../../src/platform/db/database.ts';
import { executeNamed, statementNameOf } from '../../src/platform/db/postgres-named-statements.ts';
import { postgresWebhooksStore } from '../../src/webhooks/webhooks-store-postgres.ts';
import { shouldRunWith } from '../service-availability.ts';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../test-app.ts';

const POSTGRES_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = await shouldRunWith('PostgreSQL', POSTGRES_URL);

/** The statements this connection has prepared, by name. */
async function preparedOn(db: Kysely<any>): Promise<Map<string, string>> {
  const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db);
  return new Map(rows.map((row) => [row.name, row.statement]));
}

describe.runIf(run)('named statements on PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(POSTGRES_URL);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('prepares a registered text once per connection and answers from it each time; other texts are not prepared', async () => {
    await database.handle.transaction().execute(async (trx) => {
      const named = () => executeNamed(trx, sql<{ n: number }>`select ${1}::integer + 41 as n /* named test */`);
      expect((await named()).rows).toEqual([{ n: 42 }]);
      expect((await named()).rows).toEqual([{ n: 42 }]);
      await sql`select ${2}::integer as m /* unnamed test */`.execute(trx);
      const prepared = await preparedOn(trx);
      const name = statementNameOf('select $1::integer + 41 as n /* named test */');
      expect(name).toMatch(/^erx_[0-9a-f]{24}$/);
      expect(prepared.get(name!)).toContain('named test');
      expect([...prepared.values()].some((text) => text.includes('unnamed test'))).toBe(false);
    });
  });

  it("runs the webhook dispatcher's claim as a named statement", async () => {
    // One connection, so the claim and the look at what it prepared share a session.
    const single = await openDatabase({ databaseUrl: POSTGRES_URL, databaseSchema: database.schema, poolSize: 1 });
    try {
      const now = new Date().toISOString();
      const claim = { partnerId: 'no-such-partner', now, limit: 16, leaseOwner: 'test', leaseExpiresAt: now };
      const { claimed } = await postgresWebhooksStore.claimEndpointDeliveries(single, claim, () => undefined);
      expect(claimed).toEqual([]);
      const prepared = [...(await preparedOn(single))].filter(([, text]) => text.includes('picked as materialized'));
      expect(prepared).toHaveLength(1);
      expect(prepared[0]![0]).toMatch(/^erx_/);
    } finally {
      await single.close();
    }
  });
});
