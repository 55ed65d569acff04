import { describe, expect, it } from 'vitest';
import { bearer, givenIntegration, requestToken, useTestApp } from '../given.ts';

const { t, g } = useTestApp({}, (_, { g }) => ({ g }));

const validatedAt = async (organizationId: string, partnerId: string) =>
  (
    await t.deps.database
      .selectFrom('organization_partners')
      .select('validated_at')
      .where('organization_id', '=', organizationId)
      .where('partner_id', '=', partnerId)
      .executeTakeFirstOrThrow()
  ).validated_at;

describe('GET /v1/organizations/{organization_id}/validate', () => {
  it('answers validated: true and records that this partner validated this organization', async () => {
    expect(await validatedAt(g.organizationId, g.partnerId)).toBeNull();
    const token = await requestToken(t, g, ['create:patient']);
    const response = await t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      statusCode: 200,
      message: 'Successfully validated token',
      code: 'SUCCESS',
      data: { validated: true },
      timestamp: t.clock.now().toISOString(),
      requestId: response.headers['x-request-id'],
    });
    expect(await validatedAt(g.organizationId, g.partnerId)).toBe(t.clock.now().toISOString());
  });

  it('records the validation per partner: another partner of the same organization stays unvalidated', async () => {
    const second = await givenIntegration(t);
    const token = await requestToken(t, second, ['create:patient']);
    await t.app.inject({ method: 'GET', url: `/v1/organizations/${second.organizationId}/validate`, headers: bearer(token, second) });
    expect(await validatedAt(second.organizationId, second.partnerId)).not.toBeNull();
    expect(await validatedAt(g.organizationId, second.partnerId).catch(() => 'no enablement')).toBe('no enablement');
  });

  it('needs the create:patient scope', async () => {
    const token = await requestToken(t, g, ['read:user']);
    const response = await t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: bearer(token, g) });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.detail).toBe('Insufficient scope');
  });
});
