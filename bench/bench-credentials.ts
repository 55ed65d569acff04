// The credentials the measured requests carry: a sandbox partner, organization and users
// seeded through the real CLI, and an access token from the real POST /v1/token.
import { resolveRequest, sendOnce, TOKEN_ENDPOINT, type BenchVariables } from './bench-endpoints.ts';
import { runNodeCommand } from './bench-processes.ts';

interface SeedOutput {
  partner_id: string;
  partner_secret: string;
  organization_id: string;
  organization_secret: string;
  owner: { user_id: string };
  prescriber: { user_id: string };
}

function parseSeedOutput(stdout: string): SeedOutput {
  let seed: Partial<SeedOutput>;
  try {
    seed = JSON.parse(stdout) as Partial<SeedOutput>;
  } catch {
    throw new Error(`erx sandbox seed --json printed something other than JSON: ${stdout.slice(0, 200)}`);
  }
  const fields = [seed.partner_id, seed.partner_secret, seed.organization_id, seed.organization_secret, seed.owner?.user_id, seed.prescriber?.user_id];
  if (!fields.every((field) => typeof field === 'string' && field !== '')) {
    throw new Error(`erx sandbox seed --json lacks a credential: ${stdout.slice(0, 200)}`);
  }
  return seed as SeedOutput;
}

/** Runs `erx sandbox seed --json` against the server's database and returns its credentials. */
export async function seedSandboxCredentials(env: NodeJS.ProcessEnv): Promise<BenchVariables> {
  const seed = parseSeedOutput(await runNodeCommand(['bin/erx.js', 'sandbox', 'seed', '--json'], env));
  return {
    partner_id: seed.partner_id,
    partner_secret: seed.partner_secret,
    organization_id: seed.organization_id,
    organization_secret: seed.organization_secret,
    owner_user_id: seed.owner.user_id,
    prescriber_user_id: seed.prescriber.user_id,
  };
}

/** Sends the measured token request once and returns `data.accessToken`. */
export async function requestAccessToken(baseUrl: string, credentials: BenchVariables): Promise<string> {
  const { status, text } = await sendOnce(baseUrl, resolveRequest(TOKEN_ENDPOINT, credentials));
  let token: unknown;
  try {
    token = (JSON.parse(text) as { data?: { accessToken?: unknown } }).data?.accessToken;
  } catch {
    token = undefined;
  }
  if (status !== 200 || typeof token !== 'string' || token === '') {
    throw new Error(`POST /v1/token did not issue a token: ${status} ${text.slice(0, 300)}`);
  }
  return token;
}
