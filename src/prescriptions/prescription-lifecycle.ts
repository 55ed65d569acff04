// The prescription lifecycle as one table: what each action requires of the current status,
// what it leaves, the event partners hear (and what the webhook catalogue says of it), the audit
// trail's action, the sandbox test helper that performs it and the portal's button for it.
// Everything that lists the actions (the helpers' routes, the portal's buttons and confirmation
// steps, the event names and catalogue, the tests) reads this table, so a new action is a row
// here plus the code of its own effect. Every entry point goes through planTransition, so none
// can move a prescription another way.
import type { AuditAction } from '../audit/index.ts';
import { ApiError } from '../platform/http/api-error.ts';
import { DISPENSED_EVENT, type EventType } from '../webhooks/index.ts';

export { PRESCRIPTION_STATUSES, type PrescriptionStatus } from '../platform/db/stored-values.ts';
import type { PrescriptionStatus } from '../platform/db/stored-values.ts';

/** The status a prescription must hold to be current: a patient holding one cannot be deleted. */
export const ACTIVE: PrescriptionStatus = 'Active';

export interface Transition {
  /** The status the action needs; null: the prescription does not exist yet. */
  from: PrescriptionStatus | null;
  to: PrescriptionStatus;
  event: EventType;
  /** What the event tells a partner, for the webhook event catalogue (GET /v1/partner/event-types, OpenAPI). */
  eventDescription: string;
  /** The audit trail's action for it: recorded in the change's transaction, whichever surface acted. */
  audit: AuditAction;
  /** What the action does, for the 409 that refuses it and the success message. */
  verb: string;
  /** The sandbox test helper's OpenAPI summary (POST …/prescriptions, or …/prescriptions/:scid/<action>). */
  helperSummary: string;
  /** The portal's button on a prescription's page, and the confirmation step it leads to; none: the portal's form creates. */
  portal?: {
    label: string;
    /** What the confirmation step says the action does. */
    confirmation: string;
    /** Shown as a destructive action (the prescription can no longer be dispensed). */
    destructive: boolean;
  };
}

export const TRANSITIONS = {
  create: {
    from: null,
    to: 'Active',
    event: 'prescription.created',
    eventDescription: 'A prescription was created (signed and issued).',
    audit: 'prescription.create',
    verb: 'created',
    helperSummary: 'Sandbox: prescribe, as the path user, for the path patient',
  },
  cease: {
    from: 'Active',
    to: 'Ceased',
    event: 'prescription.ceased',
    eventDescription: 'A prescription was ceased.',
    audit: 'prescription.cease',
    verb: 'ceased',
    helperSummary: 'Sandbox: cease an Active prescription',
    portal: {
      label: 'Cease prescription',
      confirmation: 'Ceasing stops the prescription (for example, the medicine is no longer needed): it can no longer be dispensed.',
      destructive: true,
    },
  },
  cancel: {
    from: 'Active',
    to: 'Cancelled',
    event: 'prescription.cancelled',
    eventDescription: 'A prescription was cancelled.',
    audit: 'prescription.cancel',
    verb: 'cancelled',
    helperSummary: 'Sandbox: cancel an Active prescription',
    portal: {
      label: 'Cancel prescription',
      confirmation: 'Cancelling withdraws the prescription (for example, it was made in error): it can no longer be dispensed.',
      destructive: true,
    },
  },
  // The token is delivered again (the delivery is overwritten); the SCID and status stay.
  reissue: {
    from: 'Active',
    to: 'Active',
    event: 'prescription.reissued',
    eventDescription: 'A prescription was reissued.',
    audit: 'prescription.reissue',
    verb: 'reissued',
    helperSummary: 'Sandbox: deliver the token of an Active prescription again (the delivery is overwritten; the SCID stays)',
    portal: {
      label: 'Reissue prescription',
      confirmation: 'Reissuing sends the token again, to the destination you choose; the SCID stays the same.',
      destructive: false,
    },
  },
} as const satisfies Readonly<Record<string, Transition>>;

export type PrescriptionAction = keyof typeof TRANSITIONS;
export const PRESCRIPTION_ACTIONS = Object.keys(TRANSITIONS) as PrescriptionAction[];

/** The actions on an existing prescription (each a helper route …/:scid/<action> and a portal button). */
export type PrescriptionChange = { [A in PrescriptionAction]: (typeof TRANSITIONS)[A]['from'] extends null ? never : A }[PrescriptionAction];
export const PRESCRIPTION_CHANGES = PRESCRIPTION_ACTIONS.filter((action): action is PrescriptionChange => TRANSITIONS[action].from !== null);

/** The events the lifecycle writes, one per action. */
export type PrescriptionEventType = (typeof TRANSITIONS)[PrescriptionAction]['event'];
export const PRESCRIPTION_EVENT_TYPES = PRESCRIPTION_ACTIONS.map((action) => TRANSITIONS[action].event);
/** The events with what each tells a partner: the webhook event catalogue's prescription entries (handed over in features.ts). */
export const PRESCRIPTION_EVENTS = [
  ...PRESCRIPTION_ACTIONS.map((action) => ({ eventType: TRANSITIONS[action].event, description: TRANSITIONS[action].eventDescription })),
  // A pharmacy's dispense, as the PDS reported it: no prescriber's action (no row above), and not one of the vendor's
  // events, so only an endpoint that subscribes to it receives it (webhooks/webhook-event-subscriptions.ts).
  {
    eventType: DISPENSED_EVENT,
    description: "A pharmacy dispensed a supply of the prescription (the PDS reported it). Not one of the vendor's events: sent only to an endpoint that subscribes to it (event_types).",
  },
];

/** The row of `action`, read through the Transition interface (so its optional parts can be tested for). */
export function transitionOf(action: PrescriptionAction): Transition {
  return TRANSITIONS[action];
}

/** The portal's button and confirmation step of a change. */
export function portalActionOf(action: PrescriptionChange): NonNullable<Transition['portal']> {
  return TRANSITIONS[action].portal;
}

/**
 * The transition `action` makes from `current` (null: no prescription yet), or the 409 that
 * refuses it, naming the current status.
 */
export function planTransition(action: PrescriptionAction, current: PrescriptionStatus | null, scid?: string): Transition {
  const transition = transitionOf(action);
  if (transition.from === current) return transition;
  const which = scid ? `Prescription ${scid}` : 'The prescription';
  const state = current === null ? 'does not exist yet' : `is ${current}`;
  const need = transition.from === null ? 'a new prescription' : `an ${transition.from} prescription`;
  throw new ApiError('CONFLICT', `${which} ${state}; only ${need} can be ${transition.verb}`);
}
