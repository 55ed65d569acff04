// is_escript_ready.can_prescribe: true exactly when every condition below holds.
// docs/partners/users.md states the same list; a test walks it condition by condition.
import { isValidHpio } from '../identifiers/index.ts';
import { missingTypeFields, RECORD_ACTIVE, type ProviderRecordRow } from './provider-details.ts';
import { PRESCRIBING_ROLE, type Role } from '../auth/index.ts';

export interface ReadinessFacts {
  enabled: boolean;
  roles: readonly Role[];
  record: ProviderRecordRow | undefined;
  organizationHpio: string | null;
}

/** Each condition, and what a prescriber for whom it does not hold can do about it (the portal shows both). */
export const CAN_PRESCRIBE_CONDITIONS: ReadonlyArray<{ condition: string; remedy: string; holds: (facts: ReadinessFacts) => boolean }> = [
  {
    condition: 'the user is enabled',
    remedy: 'Ask an owner or admin of your organization to enable your account (enable user, through your clinical software).',
    holds: (f) => f.enabled,
  },
  {
    condition: 'the user holds the provider role',
    remedy: 'Ask an owner or admin of your organization to give you the provider role (update roles, through your clinical software).',
    holds: (f) => f.roles.includes(PRESCRIBING_ROLE),
  },
  {
    condition: 'the user has a provider record verified by the HI Service and still active',
    remedy: 'Send your provider details (HPI-I, names, date of birth, sex) from your clinical software (update user), so the HI Service can verify them.',
    holds: (f) => f.record?.status === RECORD_ACTIVE,
  },
  {
    condition: 'the record has the prescriber fields its type needs (prescriber_number unless type T; qualifications when a type is given)',
    remedy: 'Add your prescriber number, and your qualifications when a prescriber type is given, to your provider details (update user).',
    holds: (f) => f.record !== undefined && missingTypeFields(f.record).length === 0,
  },
  {
    condition: 'the organization has a valid HPI-O',
    remedy: "Ask the platform operator to record your organization's HPI-O.",
    holds: (f) => f.organizationHpio !== null && isValidHpio(f.organizationHpio),
  },
];

/** What to do about an unmet condition (as unmetPrescribingConditions names it). */
export function remedyOf(condition: string): string {
  return CAN_PRESCRIBE_CONDITIONS.find((entry) => entry.condition === condition)?.remedy ?? 'Contact support.';
}

export function canPrescribe(facts: ReadinessFacts): boolean {
  return CAN_PRESCRIBE_CONDITIONS.every(({ holds }) => holds(facts));
}

/** The conditions that do not hold (none: the user can prescribe), to tell a refused prescriber why. */
export function unmetPrescribingConditions(facts: ReadinessFacts): string[] {
  return CAN_PRESCRIBE_CONDITIONS.filter(({ holds }) => !holds(facts)).map(({ condition }) => condition);
}
