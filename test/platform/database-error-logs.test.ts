// A database error never writes what was written into the log. PostgreSQL's unique violation
// quotes the key in its `detail` (`Key (organization_id, hpii_number)=(…, 8003…) already
// exists`); a test route provokes a violation of every unique index on an identifier column
// and the whole captured log is searched for the key values.
import { describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/platform/db/database.ts';
import type { Database } from '../../src/platform/db/database-schema.ts';
import { call, useTestApp } from '../given.ts';
import { DEMO, patientBody } from '../patients/patients-given.ts';
import { ANNA, providerDetails } from '../users/users-given.ts';

let duplicate: () => Promise<void> = async () => {};

const { t, c } = useTestApp({
  extend: (app) =>
    app.post('/test-only/duplicate', { config: { auth: { kind: 'public' } } }, async () => {
      await duplicate();
      return { duplicated: false };
    }),
});

type Table = keyof Database;

/** Re-inserts the row of `table` where `column` = `value`, changing `changes`: a duplicate of its unique key. */
function duplicateOf(table: Table, column: string, value: string, changes: Record<string, unknown> = {}) {
  return async () => {
    const db = t.deps.database as unknown as import('kysely').Kysely<any>;
    const row = await db.selectFrom(table).selectAll().where(column, '=', value).executeTakeFirstOrThrow();
    await db.insertInto(table).values({ ...row, ...changes }).execute();
  };
}

describe('database errors in the log', () => {
  it('name the constraint but never the key values, for every unique identifier', async () => {
    const wood = DEMO.activeVerified;
    const patient = await c.create(patientBody(c.g, wood, { ihi_number: wood.ihi_number }));
    expect(patient.statusCode).toBe(201);
    const { platform_patient_id: patientId, partner_patient_id: partnerPatientId } = patient.json().data;
    const provider = await call(t, 'PUT', c.userUrl(), c.owner, { provider_details: providerDetails(ANNA) });
    expect(provider.statusCode).toBe(200);
    const owner = await t.deps.database.selectFrom('users').select(['id', 'email']).where('id', '=', c.g.ownerId).executeTakeFirstOrThrow();

    const cases: Array<[string, () => Promise<void>, string[]]> = [
      ['partners.id', duplicateOf('partners', 'id', c.g.partnerId), [c.g.partnerId]],
      ['organizations.id', duplicateOf('organizations', 'id', c.g.organizationId), [c.g.organizationId]],
      ['organization_partners', duplicateOf('organization_partners', 'partner_id', c.g.partnerId), [c.g.partnerId, c.g.organizationId]],
      ['users.email', duplicateOf('users', 'id', owner.id, { id: crypto.randomUUID() }), [owner.email]],
      ['patients: partner_patient_id', duplicateOf('patients', 'id', patientId, { id: crypto.randomUUID() }), [partnerPatientId]],
      ['provider_records: the active HPI-I', duplicateOf('provider_records', 'user_id', c.g.userId, { user_id: c.g.ownerId }), [ANNA.hpii_number]],
    ];
    for (const [name, provoke, values] of cases) {
      t.logs.length = 0;
      let raised: unknown;
      duplicate = async () => {
        try {
          await provoke();
        } catch (error) {
          raised = error;
          throw error;
        }
      };
      const response = await call(t, 'POST', '/test-only/duplicate', {}, {});
      expect(response.statusCode, name).toBe(500);
      expect(isUniqueViolation(raised), `${name}: ${String(raised)}`).toBe(true);
      const logged = t.logs.join('\n');
      expect(logged, name).toContain('unhandled error');
      for (const value of values) expect(logged, `${name} logged ${value}`).not.toContain(value);
    }
  });
});
