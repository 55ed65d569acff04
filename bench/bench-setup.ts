// Setup steps that run once after the seed and the prescriber's token, before any endpoint is
// measured. Each takes the variables so far and returns new ones for the rows' placeholders.
import {
  BEARER,
  benchDrug,
  JSON_CONTENT,
  OWNER_TOKEN_REQUEST,
  PRESCRIBER_PROVIDER_DETAILS,
  USERS_PATH,
  type BenchEndpoint,
} from './bench-endpoints.ts';
import type { BenchVariables } from './bench-variables.ts';
import { requestAccessToken } from './bench-credentials.ts';
import { resolveRequest, sendForData } from './bench-requests.ts';
import { createPrescriptionsToList } from './bench-setup-prescriptions.ts';
import { createUsersToList } from './bench-setup-users.ts';

export type BenchSetupStep = (baseUrl: string, variables: BenchVariables) => Promise<BenchVariables>;

/** {owner_access_token}: the organization catalog routes need an owner or admin. */
const requestOwnerToken: BenchSetupStep = async (baseUrl, variables) => ({
  owner_access_token: await requestAccessToken(baseUrl, variables, OWNER_TOKEN_REQUEST),
});

const CREATE_ONE_DRUG: BenchEndpoint = {
  name: 'setup: create the drug to update',
  method: 'POST',
  path: '/v1/organizations/{organization_id}/custom-drugs',
  headers: {
    authorization: 'Bearer {owner_access_token}',
    'x-organization-secret': '{organization_secret}',
    'content-type': 'application/json',
  },
  body: [benchDrug(0)],
  baseline: 'POST',
};

/** {custom_drug_id}: one organization catalog drug, created through the bulk route. */
const createDrugToUpdate: BenchSetupStep = async (baseUrl, variables) => {
  const data = (await sendForData(baseUrl, resolveRequest(CREATE_ONE_DRUG, variables), 200)) as {
    created?: { custom_drug_id?: unknown }[];
  } | null;
  const id = data?.created?.[0]?.custom_drug_id;
  if (typeof id !== 'string' || id === '') {
    throw new Error(`${CREATE_ONE_DRUG.name}: no custom_drug_id in ${JSON.stringify(data).slice(0, 300)}`);
  }
  return { custom_drug_id: id };
};

const PRESCRIBER_PATH = `${USERS_PATH}/{prescriber_user_id}`;

/** The prescriber, with her own token, sends her provider details; the HI Service verifies them. */
const GIVE_PRESCRIBER_PROVIDER_DETAILS: BenchEndpoint = {
  name: 'setup: give the prescriber her provider details',
  method: 'PUT',
  path: PRESCRIBER_PATH,
  headers: { ...BEARER, ...JSON_CONTENT },
  body: { provider_details: PRESCRIBER_PROVIDER_DETAILS },
  baseline: 'POST',
};

const READ_PRESCRIBER: BenchEndpoint = { name: 'setup: read the prescriber', method: 'GET', path: PRESCRIBER_PATH, headers: BEARER, baseline: 'GET' };

/**
 * The update-user and prescription rows' precondition: the prescriber holds an active, verified
 * provider record (the seed gave it; sending the same details again changes no identity, so no
 * HI lookup runs). can_prescribe is true only then (docs/partners/users.md, "Readiness to prescribe"), so it is
 * the check.
 */
const activatePrescriberRecord: BenchSetupStep = async (baseUrl, variables) => {
  await sendForData(baseUrl, resolveRequest(GIVE_PRESCRIBER_PROVIDER_DETAILS, variables), 200);
  const user = (await sendForData(baseUrl, resolveRequest(READ_PRESCRIBER, variables), 200)) as {
    is_escript_ready?: { can_prescribe?: unknown };
    provider_details?: { hpii_number?: unknown } | null;
  };
  const ready = user.is_escript_ready?.can_prescribe === true && user.provider_details?.hpii_number === PRESCRIBER_PROVIDER_DETAILS.hpii_number;
  if (!ready) throw new Error(`${GIVE_PRESCRIBER_PROVIDER_DETAILS.name}: the prescriber cannot prescribe afterwards: ${JSON.stringify(user).slice(0, 400)}`);
  return {};
};

/** In order: a step may use what the ones before it returned. */
export const BENCH_SETUP_STEPS: BenchSetupStep[] = [requestOwnerToken, createDrugToUpdate, activatePrescriberRecord, createUsersToList, createPrescriptionsToList];

export async function runSetupSteps(baseUrl: string, variables: BenchVariables): Promise<BenchVariables> {
  let all = variables;
  for (const step of BENCH_SETUP_STEPS) all = { ...all, ...(await step(baseUrl, all)) };
  return all;
}
