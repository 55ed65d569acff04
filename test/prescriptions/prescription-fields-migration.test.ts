// Migration 0017 on a database that already holds prescriptions: each prescriber's are numbered
// in the order they were made, and the next prescription carries on from the last number. The
// database is taken back to the schema before 0017 (its columns, index and table dropped), then
// the migration runs again, on SQLite and on PostgreSQL alike.
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { up } from '../../migrations/0017-prescription-fields.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPrescription, givenSecondPrescriber, prescribeBody, prescriptionsClient, storedPrescription } from './prescriptions-given.ts';

const { t } = useTestApp({});

async function undoMigration(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('prescriptions_prescriber_script_number_unique').execute();
  await db.schema.dropTable('prescriber_script_numbers').execute();
  for (const column of ['pbsdva_authority_number', 'phone_approval_authority_number', 'controlled_substance_reference', 'annotations', 'prescriber_script_number']) {
    await db.schema.alterTable('prescriptions').dropColumn(column).execute();
  }
}

describe('migration 0017 on prescriptions made before it', () => {
  it("numbers each prescriber's prescriptions in the order they were made, and the next one carries on", async () => {
    const c = await givenClinic(t);
    const fredId = await givenSecondPrescriber(t, c);
    const made: Array<{ scid: string; by: 'anna' | 'fred' }> = [];
    for (const by of ['anna', 'fred', 'anna', 'anna', 'fred'] as const) {
      t.clock.advanceSeconds(60);
      const response = await prescriptionsClient(t, c).prescribe(prescribeBody(), by === 'fred' ? { userId: fredId } : {});
      made.push({ scid: response.json().data.scid, by });
    }
    await undoMigration(t.deps.database as Kysely<any>);
    await up(t.deps.database as unknown as Kysely<unknown>);

    const numbers = await Promise.all(made.map(async ({ scid }) => (await storedPrescription(t, scid))!.prescriber_script_number));
    expect(numbers).toEqual(['1', '1', '2', '3', '2']);
    expect((await givenPrescription(t, c)).prescriber_script_number).toBe('4');
    const fred = await prescriptionsClient(t, c).prescribe(prescribeBody(), { userId: fredId });
    expect(fred.json().data.prescriber_script_number).toBe('3');
  });
});
