// `erx sandbox seed`: a demo partner, an organization with an HPI-O and two users (an owner
// and a prescriber ready to prescribe), with every credential needed to call the API
// straight away. A catalogue without a PBS schedule gets the small extract the sandbox ships,
// so the portal has medicines to find (a schedule already imported is kept).
import { auditRecords } from '../audit/index.ts';
import { SCOPES } from '../auth/index.ts';
import { HI_DEMO_PROVIDERS } from '../hi-service/index.ts';
import { describeCurrentSchedule, importPbsSchedule, SANDBOX_PBS_SCHEDULE, type MedicinesContext } from '../medicines/index.ts';
import { updateUser, type UsersContext } from '../users/index.ts';
import { countPartners, findPartner } from './onboarding-store.ts';
import { createOrganization, createPartner, enablePartnerForOrganization, type OnboardingContext } from './onboarding-service.ts';
import { createUser } from './operator-users.ts';
import { setOrganizationPractice } from './organization-practice.ts';

/** A valid HPI-O from the public HI Service test data. */
export const DEMO_HPIO = '8003624166667003';

/** The demo clinic's practice address and phone (a made-up address; 03 9999 9999 is no one's). */
export const DEMO_PRACTICE = { street: '1 Demo Street', suburb: 'Fitzroy', state: 'VIC', postcode: '3065', phone: '03 9999 9999' };

/**
 * The prescriber's provider details: the identity of the HI simulator's demo provider Anna
 * Smith, whom it verifies, and the prescriber fields a medical practitioner needs.
 */
export const DEMO_PRESCRIBER_DETAILS = {
  ...HI_DEMO_PROVIDERS.verified,
  prescriber_type: 'M',
  prescriber_number: '1234567',
  qualifications: 'MBBS',
};

export interface SandboxSeed {
  partner_id: string;
  partner_secret: string;
  organization_id: string;
  organization_secret: string;
  hpio: string;
  owner: { user_id: string; email: string };
  prescriber: { user_id: string; email: string };
  token_curl: string;
}

async function freePartnerId(ctx: OnboardingContext): Promise<string> {
  for (let n = 1; ; n += 1) {
    const id = n === 1 ? 'demo-partner' : `demo-partner-${n}`;
    if (!(await findPartner(ctx.db, id))) return id;
  }
}

export function buildTokenCurl(baseUrl: string, seed: Omit<SandboxSeed, 'token_curl'>): string {
  const body = JSON.stringify({ grantType: 'client_credentials', scope: [...SCOPES] });
  return [
    `curl -s -X POST ${baseUrl}/v1/token`,
    `  -H 'content-type: application/json'`,
    `  -H 'x-partner-id: ${seed.partner_id}'`,
    `  -H 'x-partner-secret: ${seed.partner_secret}'`,
    `  -H 'x-organization-id: ${seed.organization_id}'`,
    `  -H 'x-organization-secret: ${seed.organization_secret}'`,
    `  -H 'x-user-id: ${seed.prescriber.user_id}'`,
    `  -d '${body}'`,
  ].join(' \\\n');
}

/**
 * Gives the prescriber her provider details the way a partner would (update user: the HI
 * Service verifies them), so that is_escript_ready.can_prescribe is true.
 */
async function makeReadyToPrescribe(users: UsersContext, organizationId: string, userId: string): Promise<void> {
  const body = { value: { provider_details: DEMO_PRESCRIBER_DETAILS }, issues: [] };
  await updateUser(users, { organizationId, organizationHpio: DEMO_HPIO, userId }, userId, body);
}

export async function seedSandbox(ctx: OnboardingContext, features: { users: UsersContext; medicines: MedicinesContext }): Promise<SandboxSeed> {
  const partner = await createPartner(ctx, { partnerId: await freePartnerId(ctx), name: 'Demo clinical software' });
  const organization = await createOrganization(ctx, { name: 'Demo Medical Clinic', hpio: DEMO_HPIO });
  await setOrganizationPractice(ctx, organization.organization_id, DEMO_PRACTICE);
  await enablePartnerForOrganization(ctx, { organizationId: organization.organization_id, partnerId: partner.partner_id });
  const tag = organization.organization_id.slice(0, 8);
  const newUser = (given: string, family: string, roles: string[]) =>
    createUser(ctx, {
      organizationId: organization.organization_id,
      email: `${given.toLowerCase()}.${family.toLowerCase()}+${tag}@demo-clinic.example`,
      givenName: given,
      familyName: family,
      roles,
    });
  const owner = await newUser('Olivia', 'Owner', ['owner', 'admin']);
  const prescriber = await newUser('Anna', 'Smith', ['provider']);
  await makeReadyToPrescribe(features.users, organization.organization_id, prescriber.user_id);
  if (!(await describeCurrentSchedule(features.medicines))) await importPbsSchedule(features.medicines, SANDBOX_PBS_SCHEDULE);
  // Each step above left its own entry; this one says they were one seed.
  await ctx.unitOfWork.run(async ({ record }) => {
    record(auditRecords, { action: 'admin.sandbox_seed', organizationId: organization.organization_id, detail: { partnerId: partner.partner_id } });
  });
  const seed = {
    partner_id: partner.partner_id,
    partner_secret: partner.partner_secret,
    organization_id: organization.organization_id,
    organization_secret: organization.organization_secret,
    hpio: DEMO_HPIO,
    owner: { user_id: owner.user_id, email: owner.email },
    prescriber: { user_id: prescriber.user_id, email: prescriber.email },
  };
  return { ...seed, token_curl: buildTokenCurl(ctx.apiBaseUrl, seed) };
}

export async function isDatabaseEmpty(ctx: OnboardingContext): Promise<boolean> {
  return (await countPartners(ctx.db)) === 0;
}

export function describeSandboxSeed(seed: SandboxSeed): string[] {
  return [
    'Sandbox credentials (secrets are shown once; keep them):',
    `  partner_id:           ${seed.partner_id}`,
    `  partner_secret:       ${seed.partner_secret}`,
    `  organization_id:      ${seed.organization_id}`,
    `  organization_secret:  ${seed.organization_secret}`,
    `  organization HPI-O:   ${seed.hpio}`,
    `  owner user_id:        ${seed.owner.user_id}  (${seed.owner.email})`,
    `  prescriber user_id:   ${seed.prescriber.user_id}  (${seed.prescriber.email})`,
    '',
    'Get an access token:',
    seed.token_curl,
  ];
}
