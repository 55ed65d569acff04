// What a service records in the audit trail, and how it becomes a stored entry. Services name
// the action, its outcome and the ids it touched; who acted, for which HPI-O, and from which
// request come from the audit scope (audit-scope.ts). Identifiers enter an entry only masked
// (a MaskedIdentifier can only be made by maskIdentifier), and no field takes a name, a birth
// date, an address, a phone number or an e-mail address.
import type { Insertable } from 'kysely';
import type { AuditEntriesTable } from '../platform/db/database-schema.ts';
import type { AuditOutcome } from '../platform/db/stored-values.ts';
import type { AuditAction } from './audit-actions.ts';

declare const maskedBrand: unique symbol;
/** An IHI, Medicare, DVA or HPI-I number reduced to its last 4 characters. */
export type MaskedIdentifier = string & { readonly [maskedBrand]: true };

/** `****0503`: enough to tell two patients' identifiers apart in an investigation, not enough to use one. */
export function maskIdentifier(value: string): MaskedIdentifier {
  const kept = value.replace(/\s+/g, '').slice(-4);
  return `****${kept}` as MaskedIdentifier;
}

export type AuditActor =
  /** A user of an organization, through a partner's software or the portal. */
  | { kind: 'user'; partnerId: string; organizationId: string; userId: string }
  /** A partner's credentials (claimed, when they were refused). */
  | { kind: 'partner'; partnerId: string; organizationId?: string | null; userId?: string | null }
  /** An operator's `erx` command, with the OS user who ran it. */
  | { kind: 'operator'; operator: string }
  | { kind: 'anonymous' }
  | { kind: 'system' };

/** Who acts, for which HPI-O, and from which request: what the scope an entry is recorded in adds to it. */
export interface ScopeFacts {
  actor: AuditActor;
  hpio: string | null;
  requestId: string | null;
  clientAddress: string | null;
}

/** The facts an entry may carry beyond its columns; nothing here can hold demographics. */
export interface AuditDetail {
  /** The HI Service search path tried (an IHI search) or the lookup made (a provider verification). */
  searchPath?: string;
  /** What the HI Service answered: found, no_match, verified, not_verified, inactive, unreachable... */
  hiResult?: string;
  durationMs?: number;
  /** Why it was refused or failed: an error code, never the caller's input. */
  reason?: string;
  ihi?: MaskedIdentifier;
  medicare?: MaskedIdentifier;
  dva?: MaskedIdentifier;
  hpii?: MaskedIdentifier;
  roles?: readonly string[];
  /** The patients a read showed where it showed several (the event feed): ids only. */
  patientIds?: readonly string[];
  /** How many items a list returned or a command affected. */
  count?: number;
  /** The route a credential failure came to (`/v1/token`, `/v1/sso`) or the page shown. */
  endpoint?: string;
  /** The partner an SSO link, session or operator command concerned, where it is not the actor. */
  partnerId?: string;
  /** A webhook event replayed, a session revoked...: the id the action was about. */
  subjectId?: string;
  /** A prune: where the chain now starts (the last entry removed). `erx audit verify` accepts no other anchor. */
  anchor?: ChainPointDetail;
  /** A restore: the head of the chain it replaced (null: there was no database) and the head it put back. */
  replacedHead?: ChainPointDetail | null;
  restoredHead?: ChainPointDetail | null;
  /** A backup or restore: whether the file carries erx's signature (restore: or was accepted unsigned). */
  signed?: boolean;
  /** The state rules (controlled-medicines) that refused a prescription, by their ids. */
  rules?: readonly string[];
  /** A real-time prescription monitoring check: checked or unavailable, and the level (green, amber, red); never a notification's text. */
  rtpmOutcome?: string;
  rtpmLevel?: string;
  /** How many RTPM notifications a check returned, or were acknowledged. */
  notifications?: number;
}

/** A place in the audit chain: an entry's seq and hash (seq 0: the genesis). */
export interface ChainPointDetail {
  seq: number;
  hash: string;
}

/** One access or change, as a service records it. */
export interface AuditEvent {
  action: AuditAction;
  /** Default: 'success'. */
  outcome?: AuditOutcome;
  /** Who acted, where it is not the scope's actor (credential failures name the claimed ids). */
  actor?: AuditActor;
  /** The organization the entry belongs to, where the actor has none (an operator's command). */
  organizationId?: string | null;
  hpio?: string | null;
  patientId?: string | null;
  scid?: string | null;
  targetUserId?: string | null;
  detail?: AuditDetail;
}

export type UnchainedEntry = Omit<Insertable<AuditEntriesTable>, 'seq' | 'previous_hash' | 'hash'>;

/** The stored columns of `event`, as of `recordedAt`, in `scope` (the request or command it belongs to). */
export function entryOf(event: AuditEvent, scope: ScopeFacts | undefined, recordedAt: string): UnchainedEntry {
  const actor = event.actor ?? scope?.actor ?? { kind: 'system' };
  const ids = actorIds(actor);
  return {
    recorded_at: recordedAt,
    action: event.action,
    outcome: event.outcome ?? 'success',
    actor_kind: actor.kind,
    partner_id: ids.partnerId ?? event.detail?.partnerId ?? null,
    organization_id: ids.organizationId ?? event.organizationId ?? null,
    user_id: ids.userId,
    operator: actor.kind === 'operator' ? actor.operator : null,
    hpio: event.hpio ?? scope?.hpio ?? null,
    patient_id: event.patientId ?? null,
    prescription_scid: event.scid ?? null,
    target_user_id: event.targetUserId ?? null,
    request_id: scope?.requestId ?? null,
    client_address: scope?.clientAddress ?? null,
    detail: event.detail && Object.keys(event.detail).length > 0 ? JSON.stringify(event.detail) : null,
  };
}

function actorIds(actor: AuditActor): { partnerId: string | null; organizationId: string | null; userId: string | null } {
  switch (actor.kind) {
    case 'user':
      return { partnerId: actor.partnerId, organizationId: actor.organizationId, userId: actor.userId };
    case 'partner':
      // Claimed ids of a refused credential are the caller's input: kept, but bounded.
      return { partnerId: bounded(actor.partnerId), organizationId: bounded(actor.organizationId), userId: bounded(actor.userId) };
    default:
      return { partnerId: null, organizationId: null, userId: null };
  }
}

const MAX_CLAIMED_ID = 100;

function bounded(value: string | null | undefined): string | null {
  return value == null ? null : value.slice(0, MAX_CLAIMED_ID);
}
