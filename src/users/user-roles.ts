// Every role a user can hold. Assignable roles are those a partner may set through the API;
// owner, support and member are given by the platform only.
export const ROLES = ['owner', 'admin', 'provider', 'receptionist', 'rx_reader', 'rx_queue_manager', 'support', 'member'] as const;

export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function parseStoredRoles(json: string): Role[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((r): r is Role => typeof r === 'string' && isRole(r)) : [];
}
