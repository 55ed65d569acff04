// `erx org set-mfa` and `erx user reset-mfa`: the operator sets whether an organization requires
// MFA, and resets a user's factors (their factors and recovery codes go, their sessions end,
// the reset is noted for their next sign-in), audited; bad input is refused with one clear
// line, changing nothing; a user of another organization cannot be reset through this one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { assembleDeps } from '../../src/runtime.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson, type CliEnvironment } from './cli-helpers.ts';

let cli: CliEnvironment;
let organizationId: string;
let otherOrganizationId: string;
let userId: string;

async function withDatabase<T>(work: (db: Awaited<ReturnType<typeof assembleDeps>>['database']) => Promise<T>): Promise<T> {
  const deps = await assembleDeps(loadConfig(cli.env));
  try {
    return await work(deps.database);
  } finally {
    await deps.database.close();
    await deps.rateLimiter.close();
  }
}

const stored = () =>
  withDatabase(async (db) => ({
    policies: await db.selectFrom('organizations').select(['id', 'mfa_policy']).where('id', 'in', [organizationId, otherOrganizationId]).orderBy('id').execute(),
    factors: await db.selectFrom('mfa_factors').select(['id', 'organization_id', 'user_id']).orderBy('id').execute(),
    codes: await db.selectFrom('mfa_recovery_codes').select('code_hash').orderBy('code_hash').execute(),
    users: await db.selectFrom('users').select(['id', 'mfa_reset_at']).orderBy('id').execute(),
    audit: await db.selectFrom('audit_entries').select(['action', 'outcome', 'organization_id', 'target_user_id', 'detail']).where('action', 'in', ['admin.organization_mfa', 'mfa.reset']).orderBy('seq').execute(),
  }));

beforeAll(async () => {
  cli = createCliEnvironment();
  organizationId = (await runErxJson(cli.env, ['org', 'create', '--name', 'Harbour Clinic'])).organization_id;
  otherOrganizationId = (await runErxJson(cli.env, ['org', 'create', '--name', 'Other Clinic'])).organization_id;
  userId = (await runErxJson(cli.env, ['user', 'create', '--org', organizationId, '--email', 'gp@harbour.test', '--given-name', 'Ann', '--family-name', 'Lee', '--roles', 'provider'])).user_id;
  await withDatabase(async (db) => {
    const at = '2026-11-28T00:00:00.000Z';
    const factor = { organization_id: organizationId, user_id: userId, credential_id: null, public_key: null, sign_count: null, transports: null, totp_last_step: null, created_at: at, last_used_at: null };
    await db.insertInto('mfa_factors').values([
      { ...factor, id: 'f-1', kind: 'totp', name: 'Phone', totp_secret_encrypted: 'sealed' },
      { ...factor, id: 'f-2', kind: 'totp', name: 'Tablet', totp_secret_encrypted: 'sealed' },
    ]).execute();
    await db.insertInto('mfa_recovery_codes').values({ code_hash: 'h-1', organization_id: organizationId, user_id: userId, created_at: at, used_at: null }).execute();
  });
}, 120_000);
afterAll(() => cli?.cleanup());

describe('erx org set-mfa', () => {
  it('sets the policy, audited; each organization keeps its own', async () => {
    expect(await runErxJson(cli.env, ['org', 'set-mfa', organizationId, 'required'])).toEqual({ organization_id: organizationId, mfa: 'required' });
    const text = await runErx(cli.env, ['org', 'set-mfa', otherOrganizationId, 'optional']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('mfa:              optional');
    const { policies, audit } = await stored();
    expect(policies).toEqual(expect.arrayContaining([{ id: organizationId, mfa_policy: 'required' }, { id: otherOrganizationId, mfa_policy: 'optional' }]));
    expect(audit.filter((e) => e.action === 'admin.organization_mfa').map((e) => [e.organization_id, e.outcome])).toEqual([[organizationId, 'success'], [otherOrganizationId, 'success']]);
  }, 60_000);

  it.each([
    [['org', 'set-mfa', 'ORG', 'sometimes'], /the MFA policy must be required or optional, got "sometimes"/],
    [['org', 'set-mfa', '00000000-0000-4000-8000-000000000000', 'required'], /organization 00000000-0000-4000-8000-000000000000 not found/],
  ])('refuses %j with one clear line, changing nothing', async (args, message) => {
    const before = await stored();
    expectOneLineRefusal(await runErx(cli.env, args.map((a) => (a === 'ORG' ? organizationId : a))), message);
    expect(await stored()).toEqual(before);
  }, 60_000);
});

describe('erx user reset-mfa', () => {
  it("refuses a user through another organization, or an unknown user, changing nothing", async () => {
    const before = await stored();
    expectOneLineRefusal(await runErx(cli.env, ['user', 'reset-mfa', otherOrganizationId, userId]), new RegExp(`user ${userId} not found in organization ${otherOrganizationId}`));
    expectOneLineRefusal(await runErx(cli.env, ['user', 'reset-mfa', organizationId, 'nobody']), /user nobody not found/);
    expect(await stored()).toEqual(before);
  }, 60_000);

  it("removes the user's factors and recovery codes, notes the reset for their next sign-in, audited without secrets", async () => {
    expect(await runErxJson(cli.env, ['user', 'reset-mfa', organizationId, userId])).toEqual({ organization_id: organizationId, user_id: userId, factors_removed: 2, sessions_ended: 0 });
    const { factors, codes, users, audit } = await stored();
    expect(factors).toEqual([]);
    expect(codes).toEqual([]);
    expect(users.find((u) => u.id === userId)?.mfa_reset_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const reset = audit.filter((e) => e.action === 'mfa.reset');
    expect(reset).toEqual([{ action: 'mfa.reset', outcome: 'success', organization_id: organizationId, target_user_id: userId, detail: expect.any(String) }]);
    expect(JSON.parse(reset[0]!.detail!)).toEqual({ count: 2 });
  }, 60_000);
});
