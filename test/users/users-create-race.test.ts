// Providers created at the same moment with the same HPI-I and different e-mails: one gets
// the provider record (USER_CREATED), every other is created without one
// (USER_CREATED_PROVIDER_ALREADY_EXISTS), as a sequential create answers. On PostgreSQL the
// creates are split over two instances of the service on one database; on SQLite one instance
// takes them all.
import { describe, expect, it } from 'vitest';
import { call, useTwoInstances } from '../given.ts';
import { HPII_HASH_PURPOSE } from '../../src/platform/db/sealed-columns.ts';
import { keyedHashOf } from '../../src/platform/secrets.ts';
import { ANNA, providerDetails } from './users-given.ts';

const RACERS = 10;
const race = useTwoInstances();

describe('concurrent creates of providers holding one HPI-I', () => {
  it(`answer 201 to all ${RACERS}: one USER_CREATED with the record, the others USER_CREATED_PROVIDER_ALREADY_EXISTS`, async () => {
    const { first, second, c } = race;
    const instances = [first, second];
    // Every HI lookup waits until all have arrived, so all writes start together.
    const arrived: Array<() => void> = [];
    const allArrived = new Promise<void>((resolve) => {
      for (const app of new Set(instances)) {
        app.hi.duringLookup = () =>
          new Promise<void>((release) => {
            arrived.push(release);
            if (arrived.length === RACERS) {
              for (const go of arrived) go();
              resolve();
            }
          });
      }
    });
    const { given_name, family_name, ...details } = providerDetails(ANNA);
    const responses = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        call(instances[i % 2]!, 'POST', c.usersUrl, c.owner, { given_name, family_name, email: `racer.${i}.${Date.now()}@clinic.example`, access_roles: ['provider'], ...details }),
      ),
    );
    await allArrived;
    expect(responses.map((r) => r.statusCode), responses.map((r) => r.body).join('\n')).toEqual(Array(RACERS).fill(201));
    const codes = responses.map((r) => r.json().code).sort();
    expect(codes).toEqual(['USER_CREATED', ...Array(RACERS - 1).fill('USER_CREATED_PROVIDER_ALREADY_EXISTS')]);
    const records = await first.deps.database.selectFrom('provider_records').select(['user_id', 'status']).where('hpii_number_hash', '=', keyedHashOf(HPII_HASH_PURPOSE, ANNA.hpii_number, first.deps.secretKey)).where('organization_id', '=', c.g.organizationId).execute();
    const winner = responses.find((r) => r.json().code === 'USER_CREATED')!.json().data.user_id;
    expect(records).toEqual([{ user_id: winner, status: 'active' }]);
    expect(race.logs()).not.toContain('unhandled error');
  });
});
