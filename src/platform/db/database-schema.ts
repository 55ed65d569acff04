// Every table, as a map of its columns (table-columns.ts), and the row types Kysely sees,
// derived from those maps. Ids are UUID text, times ISO-8601 text, flags 0/1 integers and
// lists JSON text, so one schema reads the same on SQLite and PostgreSQL. A new table is its
// column map plus one line in TABLES; test/platform/database-schema.test.ts fails until the
// maps and the migrations agree, column by column.
import { flag, integer, json, oneOf, text, time, type RowOf, type TableColumns } from './table-columns.ts';
import {
  AUSTRALIAN_STATES,
  IDEMPOTENCY_STATES,
  MFA_POLICIES,
  IHI_RECORD_STATUSES,
  IHI_STATUSES,
  PATIENT_SOURCES,
  PROVIDER_RECORD_STATUSES,
} from './stored-values.ts';
import { webhookAttemptsColumns, webhookDeliveriesColumns, webhookEventsColumns } from './webhook-tables.ts';
import { portalFormIdsColumns, portalSessionsColumns, prescriptionDraftsColumns, ssoTokensColumns } from './portal-tables.ts';
import { auditChainColumns, auditEntriesColumns, securityAlertsColumns } from './audit-tables.ts';
import { mfaChallengesColumns, mfaFactorsColumns, mfaFailuresColumns, mfaRecoveryCodesColumns } from './mfa-tables.ts';
import { pbsItemsColumns, pbsItemWordsColumns, pbsSchedulesColumns } from './medicine-tables.ts';
import { pdsSimulatorScriptsColumns, pdsSubmissionsColumns } from './pds-tables.ts';
import { rtpmChecksColumns } from './rtpm-tables.ts';
import { prescriberScriptNumbersColumns, prescriptionsColumns, tokenMessagesColumns } from './prescription-tables.ts';

const partnersColumns = {
  id: text(),
  name: text(),
  secret_hash: text(),
  /** The secret the last rotation replaced (its hash), accepted until previous_secret_expires_at. */
  previous_secret_hash: text().orNull(),
  previous_secret_expires_at: time().orNull(),
  webhook_url: text().orNull(),
  webhook_secret_encrypted: text().orNull(),
  created_at: time(),
  /** 1 while deliveries go out; 0 holds them (pending) until the endpoint is enabled again. */
  webhook_enabled: flag().withDefault(),
  webhook_secret_issued_at: time().orNull(),
  /** The secret the last rotation replaced; deliveries carry its signature too until it expires. */
  webhook_previous_secret_encrypted: text().orNull(),
  webhook_previous_secret_expires_at: time().orNull(),
  /** Origins allowed to frame the portal for this partner's users (JSON list; '[]': none). */
  frame_origins: json().withDefault(),
  /** The event types its endpoint receives (JSON list, migration 0062); null: the vendor's four. */
  webhook_event_types: json().orNull(),
  /** A URL the partner changed to, waiting until webhook_pending_url_at (migration 0076); deliveries go to webhook_url meanwhile. */
  webhook_pending_url: text().orNull(),
  webhook_pending_url_at: time().orNull(),
  /** Until when the partner's running recover has replays scheduled (migration 0077): another is refused before. */
  webhook_recover_until: time().orNull(),
  /** When the partner last pinged its endpoint through /v1/partner/ (pings are spaced). */
  webhook_pinged_at: time().orNull(),
} as const;

const organizationsColumns = {
  id: text(),
  name: text(),
  hpio: text().orNull(),
  allowed_scopes: text(),
  secret_hash: text(),
  /** The secret the last rotation replaced (its hash), accepted until previous_secret_expires_at. */
  previous_secret_hash: text().orNull(),
  previous_secret_expires_at: time().orNull(),
  created_at: time(),
  /** Live custom drugs of the organization and its users (the cap, migration 0012). */
  custom_drugs_held: integer().withDefault(),
  /** The practice address and phone its prescriptions print (migration 0040; null until `erx org set-practice`). */
  practice_street: text().orNull(),
  practice_suburb: text().orNull(),
  practice_state: oneOf(AUSTRALIAN_STATES).orNull(),
  practice_postcode: text().orNull(),
  practice_phone: text().orNull(),
  /** `required` or `optional` (migration 0053; null: required in production, optional in the sandbox). */
  mfa_policy: oneOf(MFA_POLICIES).orNull(),
} as const;

const organizationPartnersColumns = {
  organization_id: text(),
  partner_id: text(),
  enabled_at: time(),
  validated_at: time().orNull(),
} as const;

const usersColumns = {
  id: text(),
  organization_id: text(),
  email: text(),
  given_name: text(),
  family_name: text(),
  full_name: text(),
  /** The user's roles, a JSON list. */
  roles: json(),
  enabled: flag().withDefault(),
  created_at: time(),
  updated_at: time(),
  /** The partner's own id for the user, as create user received it (migration 0020). */
  partner_user_id: text().orNull(),
  /** When an owner, admin or operator last reset the user's MFA factors (migration 0053); cleared once the user was told. */
  mfa_reset_at: time().orNull(),
} as const;

/** Both levels of custom drug: `user_id` null is the organization catalog. */
const customDrugsColumns = {
  id: text(),
  organization_id: text(),
  user_id: text().orNull(),
  item_generic_name: text(),
  item_trade_name: text().orNull(),
  brand_name: text().orNull(),
  item_strength: text(),
  item_form: text(),
  route_of_administration: text(),
  quantity: text(),
  max_repeats: text(),
  poison_class: text(),
  custom_product_id: text().orNull(),
  description: text().orNull(),
  patient_instructions: text().orNull(),
  doctor_instructions: text().orNull(),
  created_at: time(),
  created_by: text(),
  updated_at: time(),
  updated_by: text(),
  deleted_at: time().orNull(),
  deleted_by: text().orNull(),
} as const;

/**
 * A patient of an organization. National identifiers are AES-256-GCM ciphertext
 * (`encryptSecret`); addresses are JSON text.
 */
const patientsColumns = {
  id: text(),
  organization_id: text(),
  partner_id: text(),
  partner_patient_id: text(),
  source: oneOf(PATIENT_SOURCES),
  created_by_user_id: text().orNull(),
  given_name: text(),
  family_name: text(),
  date_of_birth: time(),
  sex: text(),
  title: text().orNull(),
  ihi_number_encrypted: text().orNull(),
  ihi_status: oneOf(IHI_STATUSES).orNull(),
  ihi_record_status: oneOf(IHI_RECORD_STATUSES).orNull(),
  ihi_verified_at: time().orNull(),
  medicare_card_number_encrypted: text().orNull(),
  medicare_irn: text().orNull(),
  medicare_valid_to: text().orNull(),
  dva_file_number_encrypted: text().orNull(),
  dva_card_color: text().orNull(),
  concession_pension_number_encrypted: text().orNull(),
  entitlement_number_encrypted: text().orNull(),
  racf_id: text().orNull(),
  ctg_eligible: flag().orNull(),
  indigenous_type: text().orNull(),
  is_inpatient: flag().orNull(),
  /** Where a token goes: AES-256-GCM ciphertext (migration 0081), as the numbers above are. */
  email_encrypted: text().orNull(),
  phone_encrypted: text().orNull(),
  australian_street_address: json().orNull(),
  international_address: json().orNull(),
  created_at: time(),
  updated_at: time(),
  /** Set when the patient was deleted: the row stays for its prescriptions, out of every read. */
  deleted_at: time().orNull(),
  deleted_by_user_id: text().orNull(),
} as const;

/** A user's prescriber details, written after an HI Service verification (one per user). */
const providerRecordsColumns = {
  user_id: text(),
  organization_id: text(),
  status: oneOf(PROVIDER_RECORD_STATUSES),
  /** AES-256-GCM ciphertext (migration 0071), as the IHI is. */
  hpii_number_encrypted: text(),
  /** Its keyed hash (HMAC-SHA-256 under the secret key): what lookups and the one-active-holder index use. Null only until the startup step sealed a value kept in clear. */
  hpii_number_hash: text().orNull(),
  given_name: text(),
  family_name: text(),
  date_of_birth: time(),
  sex: text(),
  phone: text().orNull(),
  title: text().orNull(),
  prescriber_number: text().orNull(),
  provider_number: text().orNull(),
  prescriber_type: text().orNull(),
  ahpra_number: text().orNull(),
  qualifications: text().orNull(),
  hospital_provider_number: text().orNull(),
  erx_entity_id: text().orNull(),
  verified_at: time(),
  created_at: time(),
  updated_at: time(),
} as const;

/** The first response to a create sent with an Idempotency-Key, per partner and organization. */
const idempotencyKeysColumns = {
  partner_id: text(),
  organization_id: text(),
  idempotency_key: text(),
  /** SHA-256 of the request (method, path, body): the same key with another request is refused. */
  fingerprint: text(),
  state: oneOf(IDEMPOTENCY_STATES),
  response_status: integer().orNull(),
  response_body: text().orNull(),
  created_at: time(),
  /** An `in_progress` row older than this was abandoned (its process died) and may be taken over. */
  locked_until: time(),
  expires_at: time(),
} as const;

/** Per kind of pruned record, the highest id retention has deleted (migration 0014). */
const retentionMarksColumns = {
  kind: text(),
  pruned_through: text(),
  updated_at: time(),
} as const;

/** Every table of the database: the one list the row types and the schema test read. */
export const TABLES = {
  partners: partnersColumns,
  organizations: organizationsColumns,
  organization_partners: organizationPartnersColumns,
  users: usersColumns,
  patients: patientsColumns,
  custom_drugs: customDrugsColumns,
  provider_records: providerRecordsColumns,
  webhook_events: webhookEventsColumns,
  idempotency_keys: idempotencyKeysColumns,
  prescriptions: prescriptionsColumns,
  webhook_deliveries: webhookDeliveriesColumns,
  webhook_attempts: webhookAttemptsColumns,
  sso_tokens: ssoTokensColumns,
  portal_sessions: portalSessionsColumns,
  portal_form_ids: portalFormIdsColumns,
  audit_entries: auditEntriesColumns,
  audit_chain: auditChainColumns,
  security_alerts: securityAlertsColumns,
  retention_marks: retentionMarksColumns,
  pbs_schedules: pbsSchedulesColumns,
  pbs_items: pbsItemsColumns,
  pbs_item_words: pbsItemWordsColumns,
  prescriber_script_numbers: prescriberScriptNumbersColumns,
  prescription_drafts: prescriptionDraftsColumns,
  token_messages: tokenMessagesColumns,
  pds_simulator_scripts: pdsSimulatorScriptsColumns,
  pds_submissions: pdsSubmissionsColumns,
  mfa_factors: mfaFactorsColumns,
  mfa_recovery_codes: mfaRecoveryCodesColumns,
  mfa_challenges: mfaChallengesColumns,
  mfa_failures: mfaFailuresColumns,
  rtpm_checks: rtpmChecksColumns,
} as const satisfies Readonly<Record<string, TableColumns>>;

export type Database = { -readonly [T in keyof typeof TABLES]: RowOf<(typeof TABLES)[T]> };

export type PartnersTable = Database['partners'];
export type OrganizationsTable = Database['organizations'];
export type OrganizationPartnersTable = Database['organization_partners'];
export type UsersTable = Database['users'];
export type CustomDrugsTable = Database['custom_drugs'];
export type PatientsTable = Database['patients'];
export type ProviderRecordsTable = Database['provider_records'];
export type WebhookEventsTable = Database['webhook_events'];
export type IdempotencyKeysTable = Database['idempotency_keys'];
export type PrescriptionsTable = Database['prescriptions'];
export type WebhookDeliveriesTable = Database['webhook_deliveries'];
export type WebhookAttemptsTable = Database['webhook_attempts'];
export type SsoTokensTable = Database['sso_tokens'];
export type PortalSessionsTable = Database['portal_sessions'];
export type PortalFormIdsTable = Database['portal_form_ids'];
export type PrescriptionDraftsTable = Database['prescription_drafts'];
export type AuditEntriesTable = Database['audit_entries'];
export type PbsItemsTable = Database['pbs_items'];
export type TokenMessagesTable = Database['token_messages'];
export type RtpmChecksTable = Database['rtpm_checks'];
