// The sandbox seed leaves its prescriber ready to prescribe, so that its printed credentials
// alone lead to a prescription: token, patient, test helper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/index.ts';
import { seedSandbox } from '../../src/onboarding/index.ts';
import { type SandboxSeed } from '../../src/onboarding/sandbox-seed.ts';
import { readUser } from '../../src/users/users-service.ts';
import type { GivenIntegration } from '../given.ts';
import { bearer, requestToken } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { givenPatient, prescribeBody, send } from './prescriptions-given.ts';

let t: TestApp;
let seed: SandboxSeed;

beforeAll(async () => {
  t = await createTestApp();
  seed = await seedSandbox(t.features.onboarding, t.features);
});
afterAll(() => t.close());

describe('the sandbox seed', () => {
  it('verifies its prescriber with the HI simulator: can_prescribe is true', async () => {
    const user = await readUser(t.features.users, { organizationId: seed.organization_id, organizationHpio: seed.hpio, userId: seed.prescriber.user_id }, seed.prescriber.user_id);
    expect(user.is_escript_ready.can_prescribe).toBe(true);
    expect(user.provider_details).toMatchObject({ hpii_number: '8003619166667284', given_name: 'Anna', family_name: 'Smith' });
  });

  it('gives credentials that prescribe through the test helper', async () => {
    const g: GivenIntegration = {
      partnerId: seed.partner_id,
      partnerSecret: seed.partner_secret,
      organizationId: seed.organization_id,
      organizationSecret: seed.organization_secret,
      userId: seed.prescriber.user_id,
      ownerId: seed.owner.user_id,
    };
    expect(seed.token_curl).toContain('sandbox:prescribe');
    const headers = bearer(await requestToken(t, g, [...SCOPES]), g);
    const { patientId } = await givenPatient(t, { g, headers });
    const url = `/v1/test-helpers/organizations/${g.organizationId}/users/${g.userId}/patients/${patientId}/prescriptions`;
    const response = await send(t, 'POST', url, headers, prescribeBody());
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data.prescriber).toEqual({ given_name: 'Anna', family_name: 'Smith', user_id: g.userId });
  });
});
