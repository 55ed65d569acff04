// Small factories for integration tests: a partner, an organization that enabled it, users,
// and tokens, created through the same services the operator CLI uses.
import type { TestApp } from './test-app.ts';
import { SCOPES } from '../src/auth/scopes.ts';
import { createOrganization, createPartner, enablePartnerForOrganization } from '../src/onboarding/onboarding-service.ts';
import { DEMO_HPIO } from '../src/onboarding/sandbox-seed.ts';
import { createUser } from '../src/onboarding/operator-users.ts';

let counter = 0;
const unique = () => `${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

const ctx = (t: TestApp) => t.features.onboarding;

export interface GivenIntegration {
  partnerId: string;
  partnerSecret: string;
  organizationId: string;
  organizationSecret: string;
  /** A prescriber (role provider). */
  userId: string;
  /** An owner and admin. */
  ownerId: string;
}

export async function givenPartner(t: TestApp, partnerId = `partner-${unique()}`) {
  return createPartner(ctx(t), { partnerId });
}

export async function givenUser(t: TestApp, organizationId: string, roles: string[] = ['provider']) {
  const tag = unique();
  return createUser(ctx(t), {
    organizationId,
    email: `user-${tag}@example.test`,
    givenName: 'Test',
    familyName: `User ${tag}`.slice(0, 40),
    roles,
  });
}

/** A partner enabled for a fresh organization (with an HPI-O), a prescriber and an owner. */
export async function givenIntegration(
  t: TestApp,
  options: { partner?: { partner_id: string; partner_secret: string }; scopes?: string[]; hpio?: string | null } = {},
): Promise<GivenIntegration> {
  const partner = options.partner ?? (await givenPartner(t));
  const organization = await createOrganization(ctx(t), {
    name: `Clinic ${unique()}`,
    hpio: options.hpio === null ? undefined : (options.hpio ?? DEMO_HPIO),
    scopes: options.scopes,
  });
  await enablePartnerForOrganization(ctx(t), { organizationId: organization.organization_id, partnerId: partner.partner_id });
  const prescriber = await givenUser(t, organization.organization_id, ['provider']);
  const owner = await givenUser(t, organization.organization_id, ['owner', 'admin']);
  return {
    partnerId: partner.partner_id,
    partnerSecret: partner.partner_secret,
    organizationId: organization.organization_id,
    organizationSecret: organization.organization_secret,
    userId: prescriber.user_id,
    ownerId: owner.user_id,
  };
}

export function tokenHeaders(g: GivenIntegration, userId = g.userId): Record<string, string> {
  return {
    'x-partner-id': g.partnerId,
    'x-partner-secret': g.partnerSecret,
    'x-organization-id': g.organizationId,
    'x-organization-secret': g.organizationSecret,
    'x-user-id': userId,
  };
}

export async function requestToken(t: TestApp, g: GivenIntegration, scope: string[] = [...SCOPES], userId = g.userId): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: `${t.deps.config.basePath}/v1/token`,
    headers: tokenHeaders(g, userId),
    payload: { grantType: 'client_credentials', scope },
  });
  if (response.statusCode !== 200) throw new Error(`token request failed: ${response.statusCode} ${response.body}`);
  return response.json().data.accessToken as string;
}

export function bearer(token: string, g: GivenIntegration): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'x-organization-secret': g.organizationSecret };
}
