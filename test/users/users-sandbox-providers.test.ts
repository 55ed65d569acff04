// The sandbox providers of docs/partners/users.md: the built-in demo set answers as documented through the
// API, and a provider added to an ERX_HI_FIXTURES file verifies like a demo one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HI_DEMO_PROVIDERS } from '../../src/hi-service/index.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { providerDetails, readUserData } from './users-given.ts';
import { call, givenClient } from '../given.ts';

const directory = mkdtempSync(join(tmpdir(), 'erx-hi-providers-'));
const fixtureFile = join(directory, 'hi-fixtures.json');
const FRED = { hpii_number: '8003610000010401', given_name: 'Fred', family_name: 'Citizen', date_of_birth: '1980-01-01', sex: 'M' } as const;

let t: TestApp;
beforeAll(async () => {
  writeFileSync(fixtureFile, JSON.stringify({ providers: [FRED] }));
  t = await createTestApp({ env: { ERX_HI_FIXTURES: fixtureFile } });
});
afterAll(async () => {
  await t.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('sandbox providers', () => {
  it.each([
    ['Anna Smith verifies', HI_DEMO_PROVIDERS.verified, 200, undefined],
    ['Nigel Nostatus answers no status', HI_DEMO_PROVIDERS.withoutStatus, 422, 'HI_SERVICE_NOT_VERIFIED'],
    ['Dewey Disconnected finds the HI Service unreachable', HI_DEMO_PROVIDERS.unreachable, 500, undefined],
  ])('%s', async (_case, person, status, entryCode) => {
    const c = await givenClient(t);
    const response = await call(t, 'PUT', c.userUrl(), c.owner, { provider_details: providerDetails(person) });
    expect(response.statusCode).toBe(status);
    if (entryCode) expect(response.json().error.validation[0].code).toBe(entryCode);
  });

  it('verifies a provider added to the ERX_HI_FIXTURES file', async () => {
    const c = await givenClient(t);
    const response = await call(t, 'PUT', c.userUrl(), c.owner, { provider_details: providerDetails(FRED, { given_name: 'FRED' }) });
    expect(response.statusCode).toBe(200);
    expect((await readUserData(t, c, c.g.userId)).is_escript_ready.can_prescribe).toBe(true);
  });

  it('answers no match for a known HPI-I with another date of birth', async () => {
    const c = await givenClient(t);
    const response = await call(t, 'PUT', c.userUrl(), c.owner, { provider_details: providerDetails(FRED, { date_of_birth: '1980-01-02' }) });
    expect(response.json().error.validation[0].code).toBe('HI_SERVICE_NO_MATCH');
  });
});
