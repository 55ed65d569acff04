// Row types of every table, as Kysely sees them. Ids are UUID text, times ISO-8601 text,
// flags 0/1 integers and lists JSON text, so one schema reads the same on SQLite and PostgreSQL.
import type { Generated } from 'kysely';

export interface PartnersTable {
  id: string;
  name: string;
  secret_hash: string;
  webhook_url: string | null;
  webhook_secret_encrypted: string | null;
  created_at: string;
  /** 1 while deliveries go out; 0 holds them (pending) until the endpoint is enabled again. */
  webhook_enabled: Generated<number>;
  webhook_secret_issued_at: string | null;
  /** The secret the last rotation replaced; deliveries carry its signature too until it expires. */
  webhook_previous_secret_encrypted: string | null;
  webhook_previous_secret_expires_at: string | null;
  /** Origins allowed to frame the portal for this partner's users (JSON list; '[]': none). */
  frame_origins: Generated<string>;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  hpio: string | null;
  allowed_scopes: string;
  secret_hash: string;
  created_at: string;
}

export interface OrganizationPartnersTable {
  organization_id: string;
  partner_id: string;
  enabled_at: string;
  validated_at: string | null;
}

export interface UsersTable {
  id: string;
  organization_id: string;
  email: string;
  given_name: string;
  family_name: string;
  full_name: string;
  roles: string;
  enabled: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** Both levels of custom drug: `user_id` null is the organization catalog. */
export interface CustomDrugsTable {
  id: string;
  organization_id: string;
  user_id: string | null;
  item_generic_name: string;
  item_trade_name: string | null;
  brand_name: string | null;
  item_strength: string;
  item_form: string;
  route_of_administration: string;
  quantity: string;
  max_repeats: string;
  poison_class: string;
  custom_product_id: string | null;
  description: string | null;
  patient_instructions: string | null;
  doctor_instructions: string | null;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
  deleted_at: string | null;
  deleted_by: string | null;
}

/**
 * A patient of an organization. National identifiers are AES-256-GCM ciphertext
 * (`encryptSecret`); addresses are JSON text; `source` is 'api' or 'import'.
 */
export interface PatientsTable {
  id: string;
  organization_id: string;
  partner_id: string;
  partner_patient_id: string;
  source: string;
  created_by_user_id: string | null;
  given_name: string;
  family_name: string;
  date_of_birth: string;
  sex: string;
  title: string | null;
  ihi_number_encrypted: string | null;
  ihi_status: string | null;
  ihi_record_status: string | null;
  ihi_verified_at: string | null;
  medicare_card_number_encrypted: string | null;
  medicare_irn: string | null;
  medicare_valid_to: string | null;
  dva_file_number_encrypted: string | null;
  dva_card_color: string | null;
  concession_pension_number: string | null;
  entitlement_number: string | null;
  racf_id: string | null;
  ctg_eligible: number | null;
  indigenous_type: string | null;
  is_inpatient: number | null;
  email: string | null;
  phone: string | null;
  australian_street_address: string | null;
  international_address: string | null;
  created_at: string;
  updated_at: string;
  /** Set when the patient was deleted: the row stays for its prescriptions, out of every read. */
  deleted_at: Generated<string | null>;
  deleted_by_user_id: Generated<string | null>;
}

/** A user's prescriber details, written after an HI Service verification (one per user). */
export interface ProviderRecordsTable {
  user_id: string;
  organization_id: string;
  /** `active` (verified) or `inactive` (its HPI-I was taken over; verify again to reactivate). */
  status: string;
  hpii_number: string;
  given_name: string;
  family_name: string;
  date_of_birth: string;
  sex: string;
  phone: string | null;
  title: string | null;
  prescriber_number: string | null;
  provider_number: string | null;
  prescriber_type: string | null;
  ahpra_number: string | null;
  qualifications: string | null;
  hospital_provider_number: string | null;
  erx_entity_id: string | null;
  verified_at: string;
  created_at: string;
  updated_at: string;
}

/** The webhook outbox: each event's envelope, written with the change it reports. */
export interface WebhookEventsTable {
  /** `evt_` + 32 hex: the envelope's event_id. */
  id: string;
  event_type: string;
  partner_id: string;
  organization_id: string;
  /** The envelope as JSON text, exactly the bytes every delivery sends. */
  body: string;
  created_at: string;
}

/** The first response to a create sent with an Idempotency-Key, per partner and organization. */
export interface IdempotencyKeysTable {
  partner_id: string;
  organization_id: string;
  idempotency_key: string;
  /** SHA-256 of the request (method, path, body): the same key with another request is refused. */
  fingerprint: string;
  /** `in_progress` while the first request runs, `done` once its response is stored. */
  state: string;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  /** An `in_progress` row older than this was abandoned (its process died) and may be taken over. */
  locked_until: string;
  expires_at: string;
}

/**
 * A prescription as prescribed: the medicine and the prescriber's names are copied in, and
 * quantity-like values kept as the strings partners read. `delivery_*` is the current
 * delivery only (a reissue overwrites it); `flags` is the JSON object of the boolean flags set.
 */
export interface PrescriptionsTable {
  id: string;
  scid: string;
  /** The secret part of the token page's address (/tokens/{token}). */
  token: string;
  organization_id: string;
  patient_id: string;
  prescriber_user_id: string;
  status: string;
  prescription_type: string;
  item_name: string;
  item_strength: string | null;
  item_form: string | null;
  route_administration: string | null;
  pbs_code: string | null;
  schedule_number: string | null;
  quantity: string;
  number_of_repeats_authorised: string;
  repeat_intervals: string | null;
  reason_for_prescribing: string | null;
  patient_instructions: string | null;
  doctor_notes: string | null;
  flags: string;
  custom_drug_id: string | null;
  custom_product_id: string | null;
  prescriber_title: string | null;
  prescriber_given_name: string;
  prescriber_family_name: string;
  delivery_method: string;
  delivery_recipient_type: string;
  delivery_destination: string;
  delivery_pharmacy_id: string | null;
  delivery_pharmacy_name: string | null;
  error_description: string | null;
  created_at: string;
  updated_at: string;
  updated_by_user_id: string;
}

/** One run of up to 3 attempts of one event: the event's own, or an operator's replay. */
export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  partner_id: string;
  /** 'event' or 'replay'. */
  reason: string;
  /** Who asked for a replay; null for the event's own delivery. */
  requested_by: string | null;
  /** 'pending', 'delivered' or 'failed'. */
  status: string;
  attempts_made: Generated<number>;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** Bumped by every claim; an outcome is written only with the token its claim got. */
  fencing_token: Generated<number>;
  last_outcome: string | null;
  last_status_code: number | null;
  created_at: string;
  completed_at: string | null;
}

/** Every attempt of every delivery, as it happened. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  attempt_number: number;
  event_id: string;
  started_at: string;
  duration_ms: number;
  /** An outcome class of webhook-delivery-rules.ts. */
  outcome: string;
  status_code: number | null;
  /** The first 4 KiB of the receiver's answer. */
  response_body: string | null;
  /** What went wrong below HTTP (the error's message), for the operator. */
  detail: string | null;
  /** The dispatcher (host, process) that made the attempt. */
  sent_by: string;
}

/** A single-use SSO token minted by POST /v1/sso, keyed by its SHA-256 (the token is never stored). */
export interface SsoTokensTable {
  token_hash: string;
  partner_id: string;
  organization_id: string;
  user_id: string;
  redirect_path: string;
  reserved_1: string | null;
  reserved_2: string | null;
  reserved_3: string | null;
  created_at: string;
  expires_at: string;
  /** Set when the token opened a session: it works once. */
  used_at: string | null;
}

/** A portal session, keyed by the SHA-256 of its cookie value; it ends after an idle timeout. */
export interface PortalSessionsTable {
  session_hash: string;
  partner_id: string;
  organization_id: string;
  user_id: string;
  reserved_1: string | null;
  reserved_2: string | null;
  reserved_3: string | null;
  /** What the CSRF tokens of this session's forms are made from and checked against. */
  csrf_secret: string;
  created_at: string;
  last_seen_at: string;
}

/** A portal form's one-time id (migration 0011). */
export interface PortalFormIdsTable {
  form_id: string;
  session_hash: string;
  /** `prescribe`, `cease`, `cancel` or `reissue`. */
  purpose: string;
  /** The patient id (prescribe) or SCID (a change) the form acts on. */
  target: string;
  /** When the post that acts on the form claimed it (the row is deleted when that post only re-showed the form). */
  claimed_at: string;
  /** The SCID the form's first post made or changed. */
  result: string | null;
}

export interface Database {
  partners: PartnersTable;
  organizations: OrganizationsTable;
  organization_partners: OrganizationPartnersTable;
  users: UsersTable;
  patients: PatientsTable;
  custom_drugs: CustomDrugsTable;
  provider_records: ProviderRecordsTable;
  webhook_events: WebhookEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  prescriptions: PrescriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  sso_tokens: SsoTokensTable;
  portal_sessions: PortalSessionsTable;
  portal_form_ids: PortalFormIdsTable;
}
