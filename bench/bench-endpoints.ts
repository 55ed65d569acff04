// What the bench drives, as data. One row per API endpoint: later features add a row each.
// Paths, header values and body strings may hold {placeholders}, filled from the bench
// variables (the sandbox credentials, the access tokens and what the setup steps in
// bench-setup.ts create) just before the run; bench-requests.ts does the filling.
import { SCOPES } from '../src/auth/index.ts';
import { DEMO_PRESCRIBER_DETAILS } from '../src/onboarding/sandbox-seed.ts';
import { prescriberRecordNeverReverified, type StoredCheck } from './bench-stored-checks.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Which bare-Fastify route an endpoint is compared to. */
export type BaselineKind = 'GET' | 'POST';

export interface BenchEndpoint {
  name: string;
  method: HttpMethod;
  path: string;
  headers: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /**
   * The body changes on every request: each `{n}` in its strings becomes a counter, 1, 2, 3...
   * shared by the row's connections, warm-up and measurement, so no two requests send the same
   * body (a create with a fresh id every time, an update that really changes something).
   */
  bodyVaries?: boolean;
  /** Every response must have exactly this status (without it, any 2xx passes). */
  expectStatus?: number;
  /**
   * Checked once on a sample request before the warm-up: the response's `data` must contain
   * these values (placeholders filled). Proves the row measures what its name says, e.g. that
   * a bulk create really creates every item and not just the first.
   */
  expectData?: Record<string, unknown>;
  /** Checked on the same sample: `data` must be an array of at least this many entries (list routes). */
  minDataLength?: number;
  /** For a list inside `data` (e.g. `prescriptions`): the field minDataLength counts instead of `data` itself. */
  dataListField?: string;
  /**
   * Run once after the measurement, against the server's database (bench-stored-checks.ts):
   * what no response shows, e.g. that no request of the row asked the HI Service.
   */
  storedCheck?: StoredCheck;
  /** Items each request carries (bulk routes): the report adds items/s = req/s × this. */
  itemsPerRequest?: number;
  baseline: BaselineKind;
  /** Target: the lowest acceptable req/s, as a fraction of the baseline's req/s. */
  minBaselineRatio?: number;
}

export const JSON_CONTENT = { 'content-type': 'application/json' };

const TOKEN_CREDENTIALS = {
  'x-partner-id': '{partner_id}',
  'x-partner-secret': '{partner_secret}',
  'x-organization-id': '{organization_id}',
  'x-organization-secret': '{organization_secret}',
  'x-user-id': '{prescriber_user_id}',
};

/** As the prescriber (every scope, role provider). */
export const BEARER = {
  authorization: 'Bearer {access_token}',
  'x-organization-secret': '{organization_secret}',
};

/** As the organization owner (every scope, roles owner and admin): the organization catalog needs it. */
export const OWNER_BEARER = {
  authorization: 'Bearer {owner_access_token}',
  'x-organization-secret': '{organization_secret}',
};

/** POST /v1/token as the prescriber, with every scope: measured, and how the bench gets its token. */
export const TOKEN_ENDPOINT: BenchEndpoint = {
  name: 'token',
  method: 'POST',
  path: '/v1/token',
  headers: { ...JSON_CONTENT, ...TOKEN_CREDENTIALS },
  body: { grantType: 'client_credentials', scope: [...SCOPES] },
  baseline: 'POST',
};

/** The same token request as the organization owner. */
export const OWNER_TOKEN_REQUEST: BenchEndpoint = {
  ...TOKEN_ENDPOINT,
  name: 'owner token',
  headers: { ...TOKEN_ENDPOINT.headers, 'x-user-id': '{owner_user_id}' },
};

export const USERS_PATH = '/v1/organizations/{organization_id}/users';
export const PATIENTS_PATH = `${USERS_PATH}/{prescriber_user_id}/patients`;
export const TEST_HELPERS_PATIENTS_PATH = '/v1/test-helpers/organizations/{organization_id}/users/{prescriber_user_id}/patients';
const CATALOG_PATH = '/v1/organizations/{organization_id}/custom-drugs';

/** The sandbox's demo identity Jessica Wood (ACTIVE, VERIFIED), found by her Medicare number. */
export const JESSICA_WOOD = {
  partner_id: '{partner_id}',
  given_name: 'Jessica',
  family_name: 'Wood',
  date_of_birth: '1985-02-14',
  sex: 'F',
  medicare_card_number: '2950141861',
  medicare_irn: '1',
  phone: '0412345678',
};

/** A valid drug with every required field; `position` keeps the product ids apart. */
export function benchDrug(position: number): Record<string, unknown> {
  return {
    custom_product_id: `BENCH-${position}`,
    item_generic_name: 'Amoxicillin',
    item_strength: '500mg',
    item_form: 'Capsule',
    route_of_administration: 'Oral',
    quantity: 20,
    max_repeats: 2,
    poison_class: 'S4',
  };
}

const BULK_SIZE = 100;

/**
 * The seeded prescriber's provider details (the seed gives them; a setup step sends them again
 * and checks she holds an active, HI-verified provider record): the identity of the
 * simulator's demo provider Anna Smith, and the prescriber fields her type needs.
 */
export const PRESCRIBER_PROVIDER_DETAILS = DEMO_PRESCRIBER_DETAILS;

/** Users a setup step creates in the organization for the list row (the seed's two come on top). */
export const LISTED_USERS = 10_000;

/** Prescriptions a setup step creates for the patient of the list row. */
export const LISTED_PRESCRIPTIONS = 1_000;

/** A prescription written in full, sent by SMS to the patient (docs/partners/prescriptions.md). */
export const BENCH_PRESCRIPTION = {
  item_name: 'Amoxicillin',
  item_strength: '500 mg',
  item_form: 'Capsule',
  route_administration: 'Oral',
  quantity: 20,
  repeats: 1,
  repeat_interval_days: 7,
  patient_instructions: 'One capsule three times a day',
  delivery: { method: 'SMS', recipient_type: 'PATIENT' },
};

export const API_ENDPOINTS: BenchEndpoint[] = [
  TOKEN_ENDPOINT,
  {
    name: 'validate',
    method: 'GET',
    path: '/v1/organizations/{organization_id}/validate',
    headers: BEARER,
    baseline: 'GET',
    minBaselineRatio: 0.7, // issue 42 (issue 31 asked 0.5)
  },
  {
    // A partner_patient_id no row creates, so every call runs the HI search (no already_exists).
    name: 'precheck',
    method: 'POST',
    path: `${PATIENTS_PATH}/ihi-precheck`,
    headers: { ...BEARER, ...JSON_CONTENT },
    body: { partner_patient_id: 'bench-precheck', ...JESSICA_WOOD },
    expectStatus: 200,
    expectData: { outcome: 'ihi_found', searched_path: 'medicare', create_would_succeed: true, ihi_check_passed: true },
    baseline: 'POST',
    minBaselineRatio: 0.4,
  },
  {
    name: 'create patient',
    method: 'POST',
    path: PATIENTS_PATH,
    headers: { ...BEARER, ...JSON_CONTENT },
    body: { partner_patient_id: 'bench-{n}', ...JESSICA_WOOD },
    bodyVaries: true,
    expectStatus: 201,
    expectData: { has_ihi: true, ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED' },
    baseline: 'POST',
  },
  {
    // {custom_drug_id}: the drug bench-setup.ts creates before the run.
    name: 'drug update (org)',
    method: 'PUT',
    path: `${CATALOG_PATH}/{custom_drug_id}`,
    headers: { ...OWNER_BEARER, ...JSON_CONTENT },
    body: { quantity: '30', description: 'bench {n}' },
    bodyVaries: true,
    expectStatus: 200,
    expectData: { custom_drug_id: '{custom_drug_id}', quantity: '30' },
    baseline: 'POST',
    minBaselineRatio: 0.4,
  },
  {
    name: `drug bulk create (${BULK_SIZE})`,
    method: 'POST',
    path: CATALOG_PATH,
    headers: { ...OWNER_BEARER, ...JSON_CONTENT },
    body: Array.from({ length: BULK_SIZE }, (_, i) => benchDrug(i + 1)),
    expectStatus: 200,
    expectData: { total: BULK_SIZE, successCount: BULK_SIZE, failureCount: 0 },
    itemsPerRequest: BULK_SIZE,
    baseline: 'POST',
  },
  {
    // The prescriber (setup: an active provider record) edits her own title. The body holds no
    // identity field (HPI-I, names, date of birth, sex), and the HI Service is asked only for an
    // absent or inactive record or a changed identity, so each request is one detail write.
    name: 'update user (no HI lookup)',
    method: 'PUT',
    path: `${USERS_PATH}/{prescriber_user_id}`,
    headers: { ...BEARER, ...JSON_CONTENT },
    body: { provider_details: { title: 'Dr {n}' } },
    bodyVaries: true,
    expectStatus: 200,
    expectData: { user_id: '{prescriber_user_id}' },
    storedCheck: prescriberRecordNeverReverified,
    baseline: 'POST',
  },
  {
    // Every user of the organization in one response: the route has no pagination.
    name: `list users (${LISTED_USERS.toLocaleString('en-AU')})`,
    method: 'GET',
    path: USERS_PATH,
    headers: BEARER,
    expectStatus: 200,
    minDataLength: LISTED_USERS,
    baseline: 'GET',
  },
  {
    // {rx_list_patient_id}: a patient the setup gave LISTED_PRESCRIPTIONS prescriptions; the first page of 50.
    name: `list prescriptions (50 of ${LISTED_PRESCRIPTIONS.toLocaleString('en-AU')})`,
    method: 'GET',
    path: `${PATIENTS_PATH}/{rx_list_patient_id}/prescriptions?limit=50`,
    headers: BEARER,
    expectStatus: 200,
    minDataLength: 50,
    dataListField: 'prescriptions',
    baseline: 'GET',
  },
  {
    // {rx_patient_id}: another patient of the setup's, so the list row's patient keeps its 1,000.
    name: 'create prescription (test helper)',
    method: 'POST',
    path: `${TEST_HELPERS_PATIENTS_PATH}/{rx_patient_id}/prescriptions`,
    headers: { ...BEARER, ...JSON_CONTENT },
    body: BENCH_PRESCRIPTION,
    expectStatus: 201,
    expectData: { status: 'Active', quantity: '20', number_of_repeats_authorised: '1' },
    baseline: 'POST',
  },
];

/** The bare Fastify app's routes (bench/baseline-server.ts), one per baseline kind. */
export const BASELINE_ENDPOINTS: Record<BaselineKind, BenchEndpoint> = {
  GET: { name: 'baseline GET', method: 'GET', path: '/baseline', headers: {}, baseline: 'GET' },
  POST: {
    name: 'baseline POST',
    method: 'POST',
    path: '/baseline',
    headers: JSON_CONTENT,
    body: { name: 'baseline', tags: ['a', 'b', 'c'], count: 3 },
    baseline: 'POST',
  },
};
