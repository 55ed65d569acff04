// Users of an organization as partners see them: the context every users operation runs in,
// the path-user checks other features rely on, the single-user read and the list. Creating
// (user-creation.ts), updating (provider-update.ts) and access (user-access.ts) build on it.
import type { Insertable, Kysely } from 'kysely';
import { auditRecords, type AuditTrail } from '../audit/index.ts';
import type { HiServicePort } from '../hi-service/index.ts';
import { notFound } from '../platform/http/api-error.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database, UsersTable } from '../platform/db/database-schema.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import { newId } from '../platform/ids.ts';
import type { Deps } from '../deps.ts';
import { canPrescribe, unmetPrescribingConditions } from './escript-readiness.ts';
import { createUserStoreIdentityProvider, type IdentityProvider } from './identity-provider.ts';
import { toProviderDetails, type ProviderDetails, type ProviderRecordRow } from './provider-details.ts';
import { holdsAny, parseStoredRoles, PRESCRIBING_ROLE, PROVIDER_RECORD_ROLES, type Role } from '../auth/index.ts';
import {
  findProviderRecord,
  findUserByEmail,
  findUserById,
  findUserOfOrganization,
  insertUser,
  isUserOfOrganization,
  listEnabledUsersWithRole,
  listUserEmailsOfOrganization,
  type UserRow,
} from './users-store.ts';

export interface UsersContext {
  db: Kysely<Database>;
  clock: Clock;
  hiService: HiServicePort;
  identityProvider: IdentityProvider;
  /** Every change commits through it, with the records it leaves (audit entries among them). */
  unitOfWork: UnitOfWork;
  /** Where reads and HI lookups, which change nothing, are noted. */
  audit: AuditTrail;
  /** The API's external root (public URL and base path): a created user's `url` starts with it. */
  apiUrl: string;
  /** Whether a user holds an MFA factor (the mfa feature answers): read user's `mfa_enrolled`. */
  mfaEnrolment: MfaEnrolment;
  /** Seals provider records' HPI-Is and keys their hashes. */
  secretKey: Buffer;
}

/** What the users feature asks of prescriber MFA. */
export interface MfaEnrolment {
  isEnrolled(organizationId: string, userId: string): Promise<boolean>;
}

export function createUsersContext(
  deps: Pick<Deps, 'database' | 'clock' | 'hiService' | 'config' | 'secretKey'>,
  features: { unitOfWork: UnitOfWork; audit: AuditTrail; mfaEnrolment: MfaEnrolment },
): UsersContext {
  // The built-in identity provider is our own user store; an external one is plugged in here.
  const { unitOfWork, audit, mfaEnrolment } = features;
  const apiUrl = `${deps.config.publicUrl}${deps.config.basePath}`;
  return { db: deps.database, clock: deps.clock, secretKey: deps.secretKey, hiService: deps.hiService, identityProvider: createUserStoreIdentityProvider(), unitOfWork, audit, apiUrl, mfaEnrolment };
}

export const USER_NOT_FOUND = 'User not found';

/** The caller's organization as authentication read it for this request (the Principal has both). */
export interface CallerOrganization {
  organizationId: string;
  organizationHpio: string | null;
  /** The acting user: named to the HI Service with each lookup this request makes. */
  userId: string;
}

/** The path user, within the caller's organization; 404 otherwise (another organization's too). */
export async function requireUser(ctx: UsersContext, organizationId: string, pathUserId: string): Promise<UserRow> {
  const user = await findUserOfOrganization(ctx.db, organizationId, pathUserId.toLowerCase());
  if (!user) throw notFound(USER_NOT_FOUND);
  return user;
}

/**
 * For routes acting under a path user (patients, prescriber drugs): that user must belong to the
 * token's organization, else 404. The token's own user was just checked by authentication, so
 * only another user costs a query.
 */
export async function requireOrganizationUser(
  ctx: UsersContext,
  principal: { organizationId: string; userId: string },
  pathUserId: string,
): Promise<string> {
  const userId = pathUserId.toLowerCase();
  if (userId !== principal.userId && !(await isUserOfOrganization(ctx.db, principal.organizationId, userId))) {
    throw notFound(USER_NOT_FOUND);
  }
  return userId;
}

export function newUserRow(
  at: string,
  fields: { organizationId: string; email: string; givenName: string; familyName: string; roles: Role[]; partnerUserId?: string },
): Insertable<UsersTable> {
  return {
    id: newId(),
    organization_id: fields.organizationId,
    email: fields.email,
    given_name: fields.givenName,
    family_name: fields.familyName,
    full_name: `${fields.givenName} ${fields.familyName}`,
    roles: JSON.stringify(fields.roles),
    partner_user_id: fields.partnerUserId ?? null,
    created_at: at,
    updated_at: at,
  };
}

export interface UserView {
  user_id: string;
  /** The partner's own id for the user (null when create user was sent none), under both names. */
  partner_user_id: string | null;
  external_user_id: string | null;
  email: string;
  full_name: string;
  access_roles: Role[];
  details: { given_name: string; family_name: string; title: string | null; date_of_birth: string | null; sex: string | null };
  provider_details?: ProviderDetails | null;
  is_escript_ready: { can_prescribe: boolean };
  /** Whether the user holds an MFA factor (a passkey or an authenticator app) for the portal. */
  mfa_enrolled: boolean;
}

function detailsOf(user: UserRow, record: ProviderRecordRow | undefined): UserView['details'] {
  return record
    ? { given_name: record.given_name, family_name: record.family_name, title: record.title, date_of_birth: record.date_of_birth, sex: record.sex }
    : { given_name: user.given_name, family_name: user.family_name, title: null, date_of_birth: null, sex: null };
}

/** The single-user read: details from the provider record when there is one (a user.read entry: it shows the HPI-I). */
export async function readUser(ctx: UsersContext, organization: CallerOrganization, pathUserId: string): Promise<UserView> {
  const { organizationId, organizationHpio } = organization;
  const user = await requireUser(ctx, organizationId, pathUserId);
  const [record, mfaEnrolled] = await Promise.all([findProviderRecord(ctx.db, ctx.secretKey, organizationId, user.id), ctx.mfaEnrolment.isEnrolled(organizationId, user.id)]);
  await ctx.audit.noteAccess({ action: 'user.read', targetUserId: user.id });
  const roles = parseStoredRoles(user.roles);
  const details = detailsOf(user, record);
  return {
    user_id: user.id,
    partner_user_id: user.partner_user_id,
    external_user_id: user.partner_user_id,
    email: user.email,
    full_name: user.full_name,
    access_roles: roles,
    details,
    ...(holdsAny(roles, PROVIDER_RECORD_ROLES) ? { provider_details: record ? toProviderDetails(record) : null } : {}),
    is_escript_ready: { can_prescribe: canPrescribe({ enabled: user.enabled === 1, roles, record, organizationHpio }) },
    mfa_enrolled: mfaEnrolled,
  };
}

/** A user as the prescriber of a prescription: the names it carries, and why the user cannot prescribe (nothing: can). */
export interface PrescriberProfile {
  user_id: string;
  title: string | null;
  given_name: string;
  family_name: string;
  /** What a script states of the prescriber (from the provider record; null without one). */
  hpii_number: string | null;
  prescriber_number: string | null;
  /** The is_escript_ready.can_prescribe conditions that do not hold. */
  unmetConditions: string[];
}

/** The path user (404 outside the organization) as a prescriber; names from the provider record when there is one. */
export async function readPrescriberProfile(ctx: UsersContext, organization: CallerOrganization, pathUserId: string): Promise<PrescriberProfile> {
  const user = await requireUser(ctx, organization.organizationId, pathUserId);
  const record = await findProviderRecord(ctx.db, ctx.secretKey, organization.organizationId, user.id);
  const { title, given_name, family_name } = detailsOf(user, record);
  const facts = { enabled: user.enabled === 1, roles: parseStoredRoles(user.roles), record, organizationHpio: organization.organizationHpio };
  const identifiers = { hpii_number: record?.hpii_number ?? null, prescriber_number: record?.prescriber_number ?? null };
  return { user_id: user.id, title, given_name, family_name, ...identifiers, unmetConditions: unmetPrescribingConditions(facts) };
}

/** The organization's users who can prescribe now (enabled, provider, ready), in name order: whom a draft may be prepared for. */
export async function listReadyPrescribers(ctx: UsersContext, organization: CallerOrganization): Promise<PrescriberProfile[]> {
  const users = await listEnabledUsersWithRole(ctx.db, organization.organizationId, PRESCRIBING_ROLE);
  const profiles = await Promise.all(users.map((user) => readPrescriberProfile(ctx, organization, user.id)));
  return profiles.filter((profile) => profile.unmetConditions.length === 0);
}

/** Every user of the organization (enabled or not), none of another; no pagination. */
export async function listUsers(ctx: UsersContext, organizationId: string): Promise<Array<{ user_id: string; email: string }>> {
  const rows = await listUserEmailsOfOrganization(ctx.db, organizationId);
  return rows.map((row) => ({ user_id: row.id, email: row.email }));
}

// The operator's user tools (onboarding's `erx user create` and `erx user show`, the sandbox
// seed) reach users through these, across organizations, never through the users store.

/** Whether a user of any organization has this e-mail (e-mails are unique across organizations). */
export async function isEmailTaken(ctx: UsersContext, email: string): Promise<boolean> {
  return (await findUserByEmail(ctx.db, email)) !== undefined;
}

/** Stores a user the operator made: no provider record, no HI Service lookup. */
export async function insertOperatorUser(ctx: UsersContext, row: Insertable<UsersTable>): Promise<void> {
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    await insertUser(trx, row);
    record(auditRecords, { action: 'user.create', organizationId: row.organization_id, targetUserId: row.id, detail: { roles: parseStoredRoles(row.roles) } });
  });
}

/** A user of any organization as stored, with its provider record (undefined when it has none). */
export async function findStoredUser(ctx: UsersContext, userId: string): Promise<{ user: UserRow; record: ProviderRecordRow | undefined } | undefined> {
  const user = await findUserById(ctx.db, userId);
  if (!user) return undefined;
  return { user, record: await findProviderRecord(ctx.db, ctx.secretKey, user.organization_id, user.id) };
}
