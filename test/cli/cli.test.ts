// The operator CLI, run as a separate process against the same database as a running server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { decryptSecret } from '../../src/platform/secrets.ts';
import { assembleDeps, loadSecretKey } from '../../src/runtime.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson, type CliEnvironment } from './cli-helpers.ts';

let cli: CliEnvironment;
let server: RunningServer;

beforeAll(async () => {
  cli = createCliEnvironment();
  const config = loadConfig({ ...cli.env, PORT: '0' });
  server = await startServer(await assembleDeps(config));
});
afterAll(async () => {
  await server?.stop();
  await cli.cleanup();
});

async function getToken(creds: { partner: string; partnerSecret: string; org: string; orgSecret: string; user: string }) {
  const response = await fetch(`${server.url}/v1/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-partner-id': creds.partner,
      'x-partner-secret': creds.partnerSecret,
      'x-organization-id': creds.org,
      'x-organization-secret': creds.orgSecret,
      'x-user-id': creds.user,
    },
    body: JSON.stringify({ grantType: 'client_credentials', scope: ['create:patient'] }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { accessToken: string } }).data.accessToken;
}

async function validate(org: string, orgSecret: string, token: string) {
  return fetch(`${server.url}/v1/organizations/${org}/validate`, { headers: { authorization: `Bearer ${token}`, 'x-organization-secret': orgSecret } });
}

describe('erx operator CLI', () => {
  it('onboards a partner, an organization and a user that the running server accepts at once', async () => {
    expect((await runErxJson(cli.env, ['migrate'])).applied).toEqual([]);
    const partner = await runErxJson(cli.env, ['partner', 'create', 'acme-pms', '--name', 'Acme PMS', '--webhook-url', 'https://hooks.example/erx']);
    expect(partner.partner_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(partner.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const org = await runErxJson(cli.env, ['org', 'create', '--name', 'Harbour Clinic', '--hpio', '8003624166667003']);
    expect(org.organization_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await runErxJson(cli.env, ['org', 'enable-partner', org.organization_id, 'acme-pms'])).already_enabled).toBe(false);
    const user = await runErxJson(cli.env, ['user', 'create', '--org', org.organization_id, '--email', 'Dr.Who@Example.com', '--given-name', 'Ada', '--family-name', 'Who', '--roles', 'provider']);
    expect(user.email).toBe('dr.who@example.com');
    const shown = await runErxJson(cli.env, ['user', 'show', user.user_id]);
    expect(shown).toMatchObject({ user_id: user.user_id, organization_id: org.organization_id, email: 'dr.who@example.com', roles: ['provider'], enabled: true, provider_record: null });

    const token = await getToken({ partner: 'acme-pms', partnerSecret: partner.partner_secret, org: org.organization_id, orgSecret: org.organization_secret, user: user.user_id });
    expect((await validate(org.organization_id, org.organization_secret, token)).status).toBe(200);

    const stored = await readWebhookSecretColumn(partner.partner_id);
    expect(stored).not.toContain(partner.webhook_secret);
    expect(decryptSecret(stored, loadSecretKey(loadConfig(cli.env)))).toBe(partner.webhook_secret);
  }, 60_000); // seven CLI processes, each starting Node and the TypeScript loader

  it('seeds a sandbox whose printed credentials work', async () => {
    const seed = await runErxJson(cli.env, ['sandbox', 'seed']);
    expect(seed.token_curl).toContain(`x-user-id: ${seed.prescriber.user_id}`);
    const token = await getToken({ partner: seed.partner_id, partnerSecret: seed.partner_secret, org: seed.organization_id, orgSecret: seed.organization_secret, user: seed.prescriber.user_id });
    expect((await validate(seed.organization_id, seed.organization_secret, token)).status).toBe(200);
    const again = await runErxJson(cli.env, ['sandbox', 'seed']);
    expect(again.partner_id).not.toBe(seed.partner_id);
  }, 60_000); // erx processes: 16 s on a loaded 2-core machine

  it.each([
    [['partner', 'create', 'Not_A_Slug'], /partner_id must be a lowercase slug/],
    [['partner', 'create', 'acme-pms'], /partner acme-pms already exists/],
    [['partner', 'create', 'hooky', '--webhook-url', 'ftp://x'], /webhook URL must be http\(s\)/],
    [['org', 'create', '--name', 'Bad', '--hpio', '8003624166667004'], /HPI-O must be 16 digits starting 800362/],
    [['org', 'create', '--name', 'Bad', '--scopes', 'create:patient,fly:away'], /unknown scope fly:away/],
    [['org', 'enable-partner', '7d8a2f4e-1111-4a4a-8a8a-000000000000', 'acme-pms'], /organization .* not found/],
    [['user', 'show', '7d8a2f4e-1111-4a4a-8a8a-000000000000'], /user 7d8a2f4e-1111-4a4a-8a8a-000000000000 not found/],
    [['user', 'create', '--org', '7d8a2f4e-1111-4a4a-8a8a-000000000000', '--email', 'a@b.example', '--given-name', 'A', '--family-name', 'B', '--roles', 'wizard'], /unknown: wizard/],
    [['user', 'create', '--org', 'x', '--email', 'not-an-email', '--given-name', 'A', '--family-name', 'B', '--roles', 'provider'], /not a valid e-mail/],
    [['org', 'create'], /required option '--name <name>'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('fails with one clear line and a non-zero exit: erx %s', async (args, message) => {
    expectOneLineRefusal(await runErx(cli.env, args as string[]), message as RegExp);
  });
});

async function readWebhookSecretColumn(partnerId: string): Promise<string> {
  const deps = await assembleDeps(loadConfig(cli.env));
  try {
    const row = await deps.database.selectFrom('partners').select('webhook_secret_encrypted').where('id', '=', partnerId).executeTakeFirstOrThrow();
    return row.webhook_secret_encrypted!;
  } finally {
    await deps.database.close();
    await deps.rateLimiter.close();
  }
}
