// The events partners hear about through webhooks, exactly as the spec's "Events" part lists
// them: the envelope and the metadata rule for reserved_1..3. The types themselves are named
// where they happen: the prescription lifecycle table (prescriptions/prescription-lifecycle.ts).
import { randomBytes } from 'node:crypto';

/** An event's type: `prescription.` and what happened (the lifecycle table lists them). */
export type EventType = `prescription.${string}`;

/** The metadata values a partner passes on an SSO link's redirect_path (or a test helper). */
export interface EventMetadata {
  reserved_1: string | null;
  reserved_2: string | null;
  reserved_3: string | null;
}

export interface WebhookEventEnvelope {
  event_type: string;
  event_id: string;
  timestamp: string;
  partner_id: string;
  organization_id: string;
  data: { patient_id: string; partner_patient_id: string; user_id: string; scid: string } | Record<string, unknown>;
  metadata: EventMetadata;
}

/** The spec's limit on each reserved value; longer values are truncated. */
export const RESERVED_MAX_LENGTH = 30;

/** A value is delivered only when present and non-empty; otherwise null. */
export function metadataValue(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  return [...value].slice(0, RESERVED_MAX_LENGTH).join('');
}

export function eventMetadata(values: { reserved_1?: string | null; reserved_2?: string | null; reserved_3?: string | null } = {}): EventMetadata {
  return { reserved_1: metadataValue(values.reserved_1), reserved_2: metadataValue(values.reserved_2), reserved_3: metadataValue(values.reserved_3) };
}

/**
 * 32 lower-case hex characters: the creation time in milliseconds (12), then 80 random bits.
 * Ids made close in time sort close together, so the outbox's indexes grow at their end instead
 * of at random places: a delivery then writes about half as many database pages.
 */
function timeOrderedHex(): string {
  return Date.now().toString(16).padStart(12, '0').slice(-12) + randomBytes(10).toString('hex');
}

/** `evt_` + 32 lower-case hex characters (time-ordered, see timeOrderedHex). */
export function newEventId(): string {
  return `evt_${timeOrderedHex()}`;
}

/** `dlv_` + 32 lower-case hex characters (time-ordered): one delivery (the event's own, or a replay) of an event. */
export function newDeliveryId(): string {
  return `dlv_${timeOrderedHex()}`;
}

/** Sent by `erx webhooks ping`; receivers ignore event types they do not know. */
export const PING_EVENT_TYPE = 'webhook.ping';

/**
 * Sent to the previous URL when a partner changes its endpoint (webhook-endpoint-change.ts), once
 * and unstored. Not in the catalogue partners subscribe to: only the URL being left receives it.
 */
export const ENDPOINT_CHANGED_EVENT_TYPE = 'webhook.endpoint_changed';
