// Setup steps that run once after the seed and the prescriber's token, before any endpoint is
// measured. Each takes the variables so far and returns new ones for the rows' placeholders.
import { benchDrug, OWNER_TOKEN_REQUEST, type BenchEndpoint, type BenchVariables } from './bench-endpoints.ts';
import { requestAccessToken } from './bench-credentials.ts';
import { resolveRequest, sendForData } from './bench-requests.ts';

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

/** In order: a step may use what the ones before it returned. */
export const BENCH_SETUP_STEPS: BenchSetupStep[] = [requestOwnerToken, createDrugToUpdate];

export async function runSetupSteps(baseUrl: string, variables: BenchVariables): Promise<BenchVariables> {
  let all = variables;
  for (const step of BENCH_SETUP_STEPS) all = { ...all, ...(await step(baseUrl, all)) };
  return all;
}
