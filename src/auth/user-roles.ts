// Every role a user can hold, and the role lists the user routes work from (as data).
// Assignable roles are those a partner may set through the API; owner, support and member are
// given by the platform only.
export const ROLES = ['owner', 'admin', 'provider', 'receptionist', 'rx_reader', 'rx_queue_manager', 'support', 'member'] as const;

export type Role = (typeof ROLES)[number];

/** Roles a partner may give on create user and on the roles route. */
export const ASSIGNABLE_ROLES = ['admin', 'provider', 'receptionist', 'rx_reader', 'rx_queue_manager'] as const satisfies readonly Role[];
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

/** Roles the platform gives that a roles update keeps (the API can neither give nor take them). */
export const PLATFORM_KEPT_ROLES = ['owner', 'support'] as const satisfies readonly Role[];

/** Roles that carry a provider record: their holder is verified with the HI Service on create. */
export const PROVIDER_RECORD_ROLES = ['provider', 'rx_queue_manager'] as const satisfies readonly Role[];

/** The one role that may prescribe (see escript-readiness.ts). */
export const PRESCRIBING_ROLE = 'provider' satisfies Role;

/** The roles a user gets when disabled, and back when enabled (besides the PLATFORM_KEPT_ROLES they held). */
export const BASELINE_ROLES: Role[] = ['member'];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isAssignableRole(value: unknown): value is AssignableRole {
  return typeof value === 'string' && (ASSIGNABLE_ROLES as readonly string[]).includes(value);
}

export function parseStoredRoles(json: string): Role[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((r): r is Role => typeof r === 'string' && isRole(r)) : [];
}

export function holdsAny(roles: readonly Role[], wanted: readonly Role[]): boolean {
  return roles.some((role) => wanted.includes(role));
}
