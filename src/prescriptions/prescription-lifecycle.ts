// The prescription lifecycle as one table: what each action requires of the current status,
// what it leaves, and the event partners hear. Every entry point (the sandbox test helpers,
// later the portal) goes through planTransition, so none can move a prescription another way.
import { ApiError } from '../platform/http/api-error.ts';
import type { EventType } from '../webhooks/index.ts';

export { PRESCRIPTION_STATUSES, type PrescriptionStatus } from '../platform/db/stored-values.ts';
import type { PrescriptionStatus } from '../platform/db/stored-values.ts';

/** The status a prescription must hold to be current: a patient holding one cannot be deleted. */
export const ACTIVE: PrescriptionStatus = 'Active';

export const PRESCRIPTION_ACTIONS = ['create', 'cease', 'cancel', 'reissue'] as const;
export type PrescriptionAction = (typeof PRESCRIPTION_ACTIONS)[number];

export interface Transition {
  /** The status the action needs; null: the prescription does not exist yet. */
  from: PrescriptionStatus | null;
  to: PrescriptionStatus;
  event: EventType;
  /** What the action does, for the 409 that refuses it. */
  verb: string;
}

export const TRANSITIONS: Readonly<Record<PrescriptionAction, Transition>> = {
  create: { from: null, to: 'Active', event: 'prescription.created', verb: 'created' },
  cease: { from: 'Active', to: 'Ceased', event: 'prescription.ceased', verb: 'ceased' },
  cancel: { from: 'Active', to: 'Cancelled', event: 'prescription.cancelled', verb: 'cancelled' },
  // The token is delivered again (the delivery is overwritten); the SCID and status stay.
  reissue: { from: 'Active', to: 'Active', event: 'prescription.reissued', verb: 'reissued' },
};

/**
 * The transition `action` makes from `current` (null: no prescription yet), or the 409 that
 * refuses it, naming the current status.
 */
export function planTransition(action: PrescriptionAction, current: PrescriptionStatus | null, scid?: string): Transition {
  const transition = TRANSITIONS[action];
  if (transition.from === current) return transition;
  const which = scid ? `Prescription ${scid}` : 'The prescription';
  const state = current === null ? 'does not exist yet' : `is ${current}`;
  const need = transition.from === null ? 'a new prescription' : `an ${transition.from} prescription`;
  throw new ApiError('CONFLICT', `${which} ${state}; only ${need} can be ${transition.verb}`);
}
