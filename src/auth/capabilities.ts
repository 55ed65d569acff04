// What each role may do, as one table (DESIGN.md decision 17): a row per capability, naming
// the roles that hold it. A user holds several roles and their capabilities add up. The
// route-auth hook (bearer routes) and the portal's session check both read this table, so a
// rule lives here once. `whenCanPrescribe` roles hold the capability only while the user can
// prescribe (is_escript_ready): the hook lets them through and the prescriptions service
// checks readiness (409 with what is not met), as it does on every entry point.
import type { Role } from './user-roles.ts';

interface CapabilityRow {
  roles: readonly Role[];
  whenCanPrescribe?: readonly Role[];
}

const MANAGERS = ['owner', 'admin'] as const satisfies readonly Role[];
const READERS = [...MANAGERS, 'provider', 'rx_queue_manager', 'rx_reader'] as const satisfies readonly Role[];

export const CAPABILITY_TABLE = {
  /** Create users, change roles, disable, enable. */
  manage_users: { roles: MANAGERS },
  /** Update another user's name and provider details (one's own: anyone). */
  update_user_details: { roles: MANAGERS },
  /** The organization's custom drugs (the spec's owner-or-admin routes). */
  manage_organization_drugs: { roles: MANAGERS },
  'portal:patients': { roles: [...READERS, 'receptionist', 'member'] },
  'portal:read_prescriptions': { roles: READERS },
  'portal:prescribe': { roles: [], whenCanPrescribe: ['provider'] },
  'portal:reissue': { roles: ['rx_reader'], whenCanPrescribe: ['provider'] },
  /** Prepare a prescription draft for a named prescriber of the organization (the approval queue). */
  'portal:prepare_draft': { roles: ['rx_queue_manager'] },
  /** Approve or decline a draft named to oneself. */
  'portal:approve_draft': { roles: [], whenCanPrescribe: ['provider'] },
  /** See the approval queue: the drafts one prepared, or those named to oneself (the two rows above together). */
  'portal:draft_queue': { roles: ['rx_queue_manager'], whenCanPrescribe: ['provider'] },
} as const satisfies Record<string, CapabilityRow>;

export type Capability = keyof typeof CAPABILITY_TABLE;

export const CAPABILITIES = Object.keys(CAPABILITY_TABLE) as Capability[];

const rowOf = (capability: Capability): CapabilityRow => CAPABILITY_TABLE[capability];

/** Every role that holds the capability, with or without the prescribing condition. */
export function rolesWith(capability: Capability): Role[] {
  const row = rowOf(capability);
  return [...row.roles, ...(row.whenCanPrescribe ?? [])];
}

/** Whether these roles hold the capability (the prescribing condition, if any, is the service's to check). */
export function holdsCapability(roles: readonly Role[], capability: Capability): boolean {
  const allowed = rolesWith(capability);
  return roles.some((role) => allowed.includes(role));
}

/** Whether these roles hold the capability only on condition that the user can prescribe. */
export function needsReadinessFor(roles: readonly Role[], capability: Capability): boolean {
  const unconditional: readonly Role[] = rowOf(capability).roles;
  return !roles.some((role) => unconditional.includes(role));
}
