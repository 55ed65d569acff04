// Create user through the API. The user is always created (unless the e-mail is taken or the
// HI Service is unreachable); a provider whose HPI-I the HI Service does not verify, or whose
// HPI-I another active provider of the organization holds, is created without a provider
// record, and the response's code and warning say so. The user.create entry commits with the
// user; the HI lookup before it has its own (hi.provider_verify), naming the user to be.
import { auditRecords } from '../audit/index.ts';
import { normaliseEmail } from '../identifiers/index.ts';
import { ApiError } from '../platform/http/api-error.ts';
import { detailColumnsOf, type ProviderDetailsPatch, type ProviderIdentity } from './provider-details.ts';
import { claimHpii, isHpiiHeldByAnother, writeVerifiedRecord, type RecordOwner } from './provider-records.ts';
import { askHiService, checkHpiiNumber, checkOrganizationHpio, UNVERIFIED_ANSWERS, type HiAnswer } from './provider-verification.ts';
import { BASELINE_ROLES, holdsAny, PROVIDER_RECORD_ROLES, type AssignableRole, type Role } from '../auth/index.ts';
import type { Insertable } from 'kysely';
import type { UsersTable } from '../platform/db/database-schema.ts';
import type { SubmittedBody } from '../platform/http/body-validation.ts';
import { readNewUser, type NewUserRequest } from './users-input.ts';
import { newUserRow, type CallerOrganization, type UsersContext } from './users-service.ts';
import { isUniqueViolation } from '../platform/db/database.ts';
import { findUserByEmail, insertUser } from './users-store.ts';

/** The codes of a 201: created, created without provider record (not verified, or HPI-I taken). */
export const CREATED_CODES = ['USER_CREATED', 'USER_CREATED_PROVIDER_NOT_FOUND', 'USER_CREATED_PROVIDER_ALREADY_EXISTS'] as const;
export type CreatedCode = (typeof CREATED_CODES)[number];

const HPII_HELD_WARNING =
  'The HPI-I is already held by another active provider in the organization: no provider record was created and the user cannot prescribe';

export interface UserCreated {
  code: CreatedCode;
  data: { user_id: string; warning?: string; external_user_id: string | null; parchment_user_id: string; url: string };
}

/** What the new user is known by: our id, the partner's, and where to read it. */
type CreatedNames = Pick<UserCreated['data'], 'user_id' | 'external_user_id' | 'parchment_user_id' | 'url'>;

// The vendor's `url` is the user's page in its portal. erx's portal has no page per user (a
// prescriber sees only its own dashboard), so a portal link would lead nowhere; the user's
// API resource is the one address that names this user and answers (read user, read:user).
function namesOf(ctx: UsersContext, row: Insertable<UsersTable> & { id: string }): CreatedNames {
  return {
    user_id: row.id,
    external_user_id: row.partner_user_id ?? null,
    parchment_user_id: row.id,
    url: `${ctx.apiUrl}/v1/organizations/${row.organization_id}/users/${row.id}`,
  };
}

type ProviderOutcome = { answer: HiAnswer | 'held'; identity: ProviderIdentity; details: ProviderDetailsPatch };

const emailTaken = () => new ApiError('USER_ALREADY_EXISTS', 'User with this email already exists');

function rolesOnCreate(requested: AssignableRole[] | undefined): Role[] {
  return requested && requested.length > 0 ? [...new Set(requested)] : BASELINE_ROLES;
}

/** Checks the HPI-I and the organization, then asks the HI Service unless the HPI-I is taken. */
async function verifyNewProvider(ctx: UsersContext, organization: CallerOrganization, input: NewUserRequest, userId: string): Promise<ProviderOutcome> {
  checkHpiiNumber(input.hpii_number, 'hpii_number');
  checkOrganizationHpio(organization.organizationHpio);
  // Presence of these was checked with the body (422 REQUIRED_FIELD).
  const identity = {
    hpii_number: input.hpii_number,
    given_name: input.given_name,
    family_name: input.family_name,
    date_of_birth: input.date_of_birth,
    sex: input.sex,
  } as ProviderIdentity;
  const held = await isHpiiHeldByAnother(ctx.db, ctx.secretKey, organization.organizationId, identity.hpii_number);
  const context = { hpio: organization.organizationHpio!, userId: organization.userId };
  const answer = held ? 'held' : await askHiService(ctx, context, identity, userId);
  return { answer, identity, details: input };
}

function reportOf(names: CreatedNames, outcome: ProviderOutcome | undefined): UserCreated {
  if (!outcome || outcome.answer === 'verified') return { code: 'USER_CREATED', data: names };
  if (outcome.answer === 'held') return { code: 'USER_CREATED_PROVIDER_ALREADY_EXISTS', data: { ...names, warning: HPII_HELD_WARNING } };
  return { code: 'USER_CREATED_PROVIDER_NOT_FOUND', data: { ...names, warning: UNVERIFIED_ANSWERS[outcome.answer].warning } };
}

/** The user, and its provider record when verified and the HPI-I is still free, in one transaction. */
function insertNewUser(ctx: UsersContext, user: { row: Insertable<UsersTable> & { id: string }; roles: Role[] }, provider: ProviderOutcome | undefined, at: string): Promise<UserCreated> {
  const { row, roles } = user;
  const owner: RecordOwner = { organizationId: row.organization_id, userId: row.id };
  const names = namesOf(ctx, row);
  return ctx.unitOfWork.run(async ({ trx, record }) => {
    await insertUser(trx, row);
    record(auditRecords, { action: 'user.create', targetUserId: row.id, detail: { roles } });
    if (provider?.answer !== 'verified') return reportOf(names, provider);
    if (!(await claimHpii(trx, ctx.secretKey, owner, provider.identity.hpii_number, at))) return reportOf(names, { ...provider, answer: 'held' });
    await writeVerifiedRecord(trx, ctx.secretKey, owner, undefined, provider.identity, detailColumnsOf(provider.details), at);
    return reportOf(names, provider);
  });
}

export async function createOrganizationUser(ctx: UsersContext, organization: CallerOrganization, body: SubmittedBody): Promise<UserCreated> {
  const { organizationId } = organization;
  const input = readNewUser(body);
  const email = normaliseEmail(input.email);
  if (await findUserByEmail(ctx.db, email)) throw emailTaken();
  const roles = rolesOnCreate(input.access_roles);
  const at = ctx.clock.now().toISOString();
  const row = newUserRow(at, { organizationId, email, givenName: input.given_name, familyName: input.family_name, roles, partnerUserId: input.partner_user_id });
  let provider = holdsAny(roles, PROVIDER_RECORD_ROLES) ? await verifyNewProvider(ctx, organization, input, row.id) : undefined;
  // A write a unique index refused lost a race: for the e-mail (409), or for the HPI-I, which
  // another create claimed between our check and our write (two instances both read no
  // holder). Ours is then created without a provider record, as if it had come second.
  for (;;) {
    try {
      return await insertNewUser(ctx, { row, roles }, provider, at);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (await findUserByEmail(ctx.db, email)) throw emailTaken();
      if (provider?.answer !== 'verified') throw error;
      provider = { ...provider, answer: 'held' };
    }
  }
}
