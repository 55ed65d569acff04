// The closed sets of values status-like columns hold. They live here, below every feature, so
// the table types can name them; the features' own constants are these lists (re-exported) or
// are checked against them with `satisfies`, so the two cannot part.

/** The six states and two mainland territories, as their upper-case abbreviations (Australia Post). */
export const AUSTRALIAN_STATES = ['NSW', 'VIC', 'QLD', 'WA', 'SA', 'TAS', 'ACT', 'NT'] as const;
export type AustralianState = (typeof AUSTRALIAN_STATES)[number];

/** Pending: written, not yet accepted by the PDS (no SCID); Error: the PDS refused it, or could not be reached in time. */
export const PRESCRIPTION_STATUSES = ['Pending', 'Active', 'Ceased', 'Cancelled', 'Error'] as const;
export type PrescriptionStatus = (typeof PRESCRIPTION_STATUSES)[number];

/** ELECTRONIC: its token goes to the patient or a pharmacy; PAPER: printed and handed over (no token). One for a prescription's whole life. */
export const PRESCRIPTION_TYPES = ['ELECTRONIC', 'PAPER'] as const;
export type PrescriptionType = (typeof PRESCRIPTION_TYPES)[number];

/** A prescription draft: `waiting` until its prescriber approves or declines it, once. */
export const DRAFT_STATUSES = ['waiting', 'approved', 'declined'] as const;
export type DraftStatus = (typeof DRAFT_STATUSES)[number];
export const DELIVERY_METHODS = ['SMS', 'EMAIL'] as const;
export const RECIPIENT_TYPES = ['PATIENT', 'PHARMACY'] as const;

/** A webhook delivery: 'pending' until a 2xx ('delivered') or its last failed attempt ('failed'). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Why a delivery ended 'failed' without (more) attempts: its organization withdrew the partner (`erx org disable-partner`) before it was sent. */
export const DELIVERY_ENDED_BECAUSE = ['organization_withdrew_partner'] as const;
export type DeliveryEndedBecause = (typeof DELIVERY_ENDED_BECAUSE)[number];

/** Why a delivery exists: made with its event, or asked for by an operator. */
export const DELIVERY_REASONS = ['event', 'replay'] as const;
export type DeliveryReason = (typeof DELIVERY_REASONS)[number];

/** How a webhook attempt ended, as the attempt log records it (webhook-delivery-rules.ts classifies). */
export const OUTCOME_CLASSES = [
  'success',
  'http_4xx',
  'http_5xx',
  'http_408',
  'http_429',
  'redirect',
  'timeout',
  'dns',
  'connect',
  'tls',
  'blocked_address',
] as const;
export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

/** `active` (verified) or `inactive` (its HPI-I was taken over; verify again to reactivate). */
export const PROVIDER_RECORD_STATUSES = ['active', 'inactive'] as const;
export type ProviderRecordStatus = (typeof PROVIDER_RECORD_STATUSES)[number];

/** `in_progress` while the first request runs, `done` once its response is stored. */
export const IDEMPOTENCY_STATES = ['in_progress', 'done'] as const;

/** 'api' (created through POST .../patients) or 'import' (brought over from another system). */
export const PATIENT_SOURCES = ['api', 'import'] as const;

export const IHI_STATUSES = ['ACTIVE', 'DECEASED', 'RETIRED', 'EXPIRED', 'RESOLVED', 'UNKNOWN'] as const;
export type IhiStatus = (typeof IHI_STATUSES)[number];

export const IHI_RECORD_STATUSES = ['VERIFIED', 'UNVERIFIED', 'PROVISIONAL', 'UNKNOWN'] as const;
export type IhiRecordStatus = (typeof IHI_RECORD_STATUSES)[number];

/**
 * How an audited access or change ended: 'success'; 'refused' (the caller's request was
 * refused: bad credentials, input, role or state); 'error' (a service erx depends on failed).
 */
export const AUDIT_OUTCOMES = ['success', 'refused', 'error'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Who acted: a user through a partner's software, a partner's credentials alone, an operator's `erx` command, someone unauthenticated, or erx itself. */
export const AUDIT_ACTOR_KINDS = ['user', 'partner', 'operator', 'anonymous', 'system'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/** An organization's MFA policy (migration 0053). */
export const MFA_POLICIES = ['required', 'optional'] as const;
export type MfaPolicy = (typeof MFA_POLICIES)[number];

/** The kinds of MFA factor (migration 0053). */
export const MFA_FACTOR_KINDS = ['passkey', 'totp'] as const;
export type MfaFactorKind = (typeof MFA_FACTOR_KINDS)[number];
