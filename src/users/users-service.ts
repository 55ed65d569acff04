// Creating users. (The partner-facing user routes build on this.)
import type { Kysely } from 'kysely';
import { isValidEmail, normaliseEmail } from '../identifiers/index.ts';
import { findOrganization } from '../onboarding/onboarding-store.ts';
import { OnboardingError } from '../onboarding/onboarding-service.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/database-schema.ts';
import { newId } from '../platform/ids.ts';
import { isRole, ROLES, type Role } from './user-roles.ts';
import { findUserByEmail, insertUser } from './users-store.ts';

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

export async function createUser(db: Kysely<Database>, clock: Clock, input: NewUser): Promise<{ user_id: string; email: string; roles: Role[] }> {
  const organizationId = input.organizationId.toLowerCase();
  const email = normaliseEmail(input.email);
  if (!isValidEmail(email)) throw new OnboardingError(`not a valid e-mail address: ${input.email}`);
  const givenName = checkName('given name', input.givenName);
  const familyName = checkName('family name', input.familyName);
  const unknown = input.roles.filter((r) => !isRole(r));
  if (input.roles.length === 0 || unknown.length > 0) {
    throw new OnboardingError(`roles must be a non-empty list of ${ROLES.join(', ')}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}`);
  }
  if (!(await findOrganization(db, organizationId))) throw new OnboardingError(`organization ${input.organizationId} not found`);
  if (await findUserByEmail(db, email)) throw new OnboardingError(`a user with e-mail ${email} already exists`);
  const userId = newId();
  const now = clock.now().toISOString();
  const roles = [...new Set(input.roles)] as Role[];
  await insertUser(db, {
    id: userId,
    organization_id: organizationId,
    email,
    given_name: givenName,
    family_name: familyName,
    full_name: `${givenName} ${familyName}`,
    roles: JSON.stringify(roles),
    created_at: now,
    updated_at: now,
  });
  return { user_id: userId, email, roles };
}
