// The operator's create user (`erx user create`, the sandbox seed): any role, no provider
// record and no HI Service lookup. Partners create users through the API (users/user-creation.ts).
import { isValidEmail, normaliseEmail } from '../identifiers/index.ts';
import { isRole, parseStoredRoles, ROLES, type Role } from '../auth/index.ts';
import { findStoredUser, insertOperatorUser, isEmailTaken, newUserRow } from '../users/index.ts';
import { OnboardingError, type OnboardingContext } from './onboarding-service.ts';
import { findOrganization } from './onboarding-store.ts';

export interface NewUser {
  organizationId: string;
  email: string;
  givenName: string;
  familyName: string;
  roles: string[];
}

const NAME_MAX = 100;

function checkName(label: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.length > NAME_MAX) throw new OnboardingError(`${label} must be 1 to ${NAME_MAX} characters`);
  return trimmed;
}

export async function createUser(ctx: OnboardingContext, input: NewUser): Promise<{ user_id: string; email: string; roles: Role[] }> {
  const organizationId = input.organizationId.toLowerCase();
  const email = normaliseEmail(input.email);
  if (!isValidEmail(email)) throw new OnboardingError(`not a valid e-mail address: ${input.email}`);
  const givenName = checkName('given name', input.givenName);
  const familyName = checkName('family name', input.familyName);
  const unknown = input.roles.filter((r) => !isRole(r));
  if (input.roles.length === 0 || unknown.length > 0) {
    throw new OnboardingError(`roles must be a non-empty list of ${ROLES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  }
  if (!(await findOrganization(ctx.db, organizationId))) throw new OnboardingError(`organization ${input.organizationId} not found`);
  if (await isEmailTaken(ctx.users, email)) throw new OnboardingError(`a user with e-mail ${email} already exists`);
  const roles = [...new Set(input.roles)] as Role[];
  const row = newUserRow(ctx.clock.now().toISOString(), { organizationId, email, givenName, familyName, roles });
  await insertOperatorUser(ctx.users, row);
  return { user_id: row.id, email, roles };
}

export interface OperatorUserView {
  user_id: string;
  organization_id: string;
  email: string;
  full_name: string;
  roles: Role[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
  /** The provider record as stored, with when it was last verified by the HI Service. */
  provider_record: Record<string, string | null> | null;
}

/** `erx user show`: a user of any organization, as stored, for support and checks. */
export async function showUser(ctx: OnboardingContext, userId: string): Promise<OperatorUserView> {
  const stored = await findStoredUser(ctx.users, userId.toLowerCase());
  if (!stored) throw new OnboardingError(`user ${userId} not found`);
  const { user, record } = stored;
  // It shows the provider record, HPI-I included: a read the trail keeps, as the API's is.
  await ctx.users.audit.noteAccess({ action: 'user.read', organizationId: user.organization_id, targetUserId: user.id });
  const { user_id: _user, organization_id: _organization, ...provider } = record ?? { user_id: '', organization_id: '' };
  return {
    user_id: user.id,
    organization_id: user.organization_id,
    email: user.email,
    full_name: user.full_name,
    roles: parseStoredRoles(user.roles),
    enabled: user.enabled === 1,
    created_at: user.created_at,
    updated_at: user.updated_at,
    provider_record: record ? provider : null,
  };
}
