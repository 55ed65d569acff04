// The credentials the measured requests carry: a sandbox partner, organization and users
// seeded through the real CLI, and an access token from the real POST /v1/token.
import { TOKEN_ENDPOINT, type BenchEndpoint } from './bench-endpoints.ts';
import type { BenchVariables } from './bench-variables.ts';
import { resolveRequest, sendForData } from './bench-requests.ts';
import { prepareApiEnvironment, type ApiEnvironment } from './bench-environment.ts';
import { findFreePort, runNodeCommand, startChildServer, type ChildServer } from './bench-processes.ts';

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

/** Runs `erx sandbox seed --json` (of the checkout `cwd`, by default this one) against the server's database and returns its credentials. */
export async function seedSandboxCredentials(env: NodeJS.ProcessEnv, cwd?: string): Promise<BenchVariables> {
  const seed = parseSeedOutput(await runNodeCommand(['bin/erx.js', 'sandbox', 'seed', '--json'], env, undefined, cwd));
  return {
    partner_id: seed.partner_id,
    partner_secret: seed.partner_secret,
    organization_id: seed.organization_id,
    organization_secret: seed.organization_secret,
    owner_user_id: seed.owner.user_id,
    prescriber_user_id: seed.prescriber.user_id,
  };
}

/** Sends a token request once (by default the measured one, as the prescriber) and returns `data.accessToken`. */
export async function requestAccessToken(baseUrl: string, variables: BenchVariables, tokenRequest: BenchEndpoint = TOKEN_ENDPOINT): Promise<string> {
  const data = await sendForData(baseUrl, resolveRequest(tokenRequest, variables), 200);
  const token = (data as { accessToken?: unknown } | null)?.accessToken;
  if (typeof token !== 'string' || token === '') {
    throw new Error(`${tokenRequest.name} (POST /v1/token) did not issue a token: ${JSON.stringify(data).slice(0, 300)}`);
  }
  return token;
}

/** Runs `work` against a fresh `erx serve` (its own data) with the sandbox seeded and a token; stops and removes it all after. */
export async function withSeededServer<T>(
  work: (server: ChildServer, environment: ApiEnvironment, variables: BenchVariables) => Promise<T>,
  environmentOptions: { metrics?: boolean } = {},
): Promise<T> {
  const port = await findFreePort();
  const environment = await prepareApiEnvironment(port, environmentOptions);
  try {
    const server = await startChildServer({ name: 'erx server', args: ['bin/erx.js', 'serve'], env: environment.env, port, readyPath: '/ready' });
    try {
      const credentials = await seedSandboxCredentials(environment.env);
      return await work(server, environment, { ...credentials, access_token: await requestAccessToken(server.baseUrl, credentials) });
    } finally {
      await server.stop();
    }
  } finally {
    await environment.remove();
  }
}
