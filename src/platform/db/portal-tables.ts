// The SSO and portal tables (see database-schema.ts).
import { json, oneOf, text, time } from './table-columns.ts';
import { DRAFT_STATUSES } from './stored-values.ts';

/** A single-use SSO token minted by POST /v1/sso, keyed by its SHA-256 (the token is never stored). */
export const ssoTokensColumns = {
  token_hash: text(),
  partner_id: text(),
  organization_id: text(),
  user_id: text(),
  redirect_path: text(),
  reserved_1: text().orNull(),
  reserved_2: text().orNull(),
  reserved_3: text().orNull(),
  created_at: time(),
  expires_at: time(),
  /** Set when the token opened a session: it works once. */
  used_at: time().orNull(),
  /** When the used token was first brought again: that replay is in the audit chain, later ones only counted (migration 0080). */
  replay_noted_at: time().orNull(),
} as const;

/** A portal session, keyed by the SHA-256 of its cookie value; it ends after an idle timeout. */
export const portalSessionsColumns = {
  session_hash: text(),
  partner_id: text(),
  organization_id: text(),
  user_id: text(),
  reserved_1: text().orNull(),
  reserved_2: text().orNull(),
  reserved_3: text().orNull(),
  /** What the CSRF tokens of this session's forms are made from and checked against. */
  csrf_secret: text(),
  created_at: time(),
  last_seen_at: time(),
  /** When the session's user last presented an MFA factor (migration 0053); null: not yet. */
  factor_presented_at: time().orNull(),
} as const;

/** A portal form's one-time id (migration 0011): claimed by the first post of the form. */
export const portalFormIdsColumns = {
  form_id: text(),
  session_hash: text(),
  /** `prescribe`, `cease`, `cancel` or `reissue`. */
  purpose: text(),
  /** The patient id (prescribe) or SCID (a change) the form acts on. */
  target: text(),
  /** When the post that acts on the form claimed it (the row is deleted when that post only re-showed the form). */
  claimed_at: time(),
  /** The SCID the form's first post made or changed. */
  result: text().orNull(),
} as const;

/** A prescription prepared by a queue manager for a named prescriber (migration 0018). */
export const prescriptionDraftsColumns = {
  id: text(),
  organization_id: text(),
  patient_id: text(),
  prescriber_user_id: text(),
  prepared_by_user_id: text(),
  status: oneOf(DRAFT_STATUSES),
  /** The validated prescribe body (JSON), AES-256-GCM ciphertext (migration 0070), handed back to the create path on approval. */
  body_encrypted: text(),
  /** The medicine as the queue lists it. */
  medicine: text(),
  decline_reason: text().orNull(),
  /** The prescription the approval created. */
  scid: text().orNull(),
  decided_by_user_id: text().orNull(),
  decided_at: time().orNull(),
  created_at: time(),
} as const;
