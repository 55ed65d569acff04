// The prescriber MFA tables (migration 0053; see database-schema.ts).
import { integer, json, oneOf, text, time } from './table-columns.ts';
import { MFA_FACTOR_KINDS } from './stored-values.ts';

/** A user's factor: a passkey (WebAuthn public key) or a TOTP secret (encrypted). */
export const mfaFactorsColumns = {
  id: text(),
  organization_id: text(),
  user_id: text(),
  kind: oneOf(MFA_FACTOR_KINDS),
  /** The user's own name for it ("Work laptop"). */
  name: text(),
  /** A passkey's credential id (base64url). */
  credential_id: text().orNull(),
  /** A passkey's COSE public key (base64url). */
  public_key: text().orNull(),
  sign_count: integer().orNull(),
  transports: json().orNull(),
  totp_secret_encrypted: text().orNull(),
  /** The last 30-second step whose code was accepted: a code is refused the second time. */
  totp_last_step: integer().orNull(),
  created_at: time(),
  last_used_at: time().orNull(),
} as const;

/** A single-use recovery code, as its SHA-256. */
export const mfaRecoveryCodesColumns = {
  code_hash: text(),
  organization_id: text(),
  user_id: text(),
  created_at: time(),
  used_at: time().orNull(),
} as const;

/** A session's pending WebAuthn challenge or TOTP secret (one per purpose), single use, 5 minutes. */
export const mfaChallengesColumns = {
  session_hash: text(),
  /** `register`, `authenticate` or `totp`. */
  purpose: text(),
  /** The challenge (base64url), or the pending TOTP secret encrypted. */
  challenge: text(),
  expires_at: time(),
} as const;

/** A wrong TOTP or recovery code, counted per user for the lockout. */
export const mfaFailuresColumns = {
  id: text(),
  organization_id: text(),
  user_id: text(),
  failed_at: time(),
} as const;
