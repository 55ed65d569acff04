// The operator's create user (`erx user create`, the sandbox seed): any role, no provider
// record and no HI Service lookup. Partners create users through the API (users/user-creation.ts).
import { isValidEmail, normaliseEmail } from '../identifiers/index.ts';
import { isRole, ROLES, type Role } from '../auth/user-roles.ts';
import { newUserRow } from '../users/users-service.ts';
import { findUserByEmail, insertUser } from '../users/users-store.ts';
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
  if (await findUserByEmail(ctx.db, email)) throw new OnboardingError(`a user with e-mail ${email} already exists`);
  const roles = [...new Set(input.roles)] as Role[];
  const row = newUserRow(ctx.clock.now().toISOString(), { organizationId, email, givenName, familyName, roles });
  await insertUser(ctx.db, row);
  return { user_id: row.id, email, roles };
}
