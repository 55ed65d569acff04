// `erx org set-practice`: the operator records an organization's practice address and phone
// (what its prescriptions state), validated (the state as its abbreviation, a 4-digit postcode,
// an Australian phone number), audited, and refused with one clear line when wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { assembleDeps } from '../../src/runtime.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson, type CliEnvironment } from './cli-helpers.ts';

let cli: CliEnvironment;
let organizationId: string;

beforeAll(async () => {
  cli = createCliEnvironment();
  organizationId = (await runErxJson(cli.env, ['org', 'create', '--name', 'Harbour Clinic', '--hpio', '8003624166667003'])).organization_id;
});
afterAll(() => cli?.cleanup());

async function stored(id: string) {
  const deps = await assembleDeps(loadConfig(cli.env));
  try {
    const organization = await deps.database
      .selectFrom('organizations')
      .select(['practice_street', 'practice_suburb', 'practice_state', 'practice_postcode', 'practice_phone'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const entries = await deps.database.selectFrom('audit_entries').select(['action', 'outcome']).where('organization_id', '=', id).where('action', '=', 'admin.organization_practice').execute();
    return { organization, entries };
  } finally {
    await deps.database.close();
    await deps.rateLimiter.close();
  }
}

const practice = ['--street', '12  Smith St', '--suburb', 'Fitzroy', '--state', 'vic', '--postcode', '3065', '--phone', '(03) 9123 4567'];

describe('erx org set-practice', () => {
  it('records the practice address and phone, the state as its abbreviation and the phone as digits, with an audit entry', async () => {
    const result = await runErxJson(cli.env, ['org', 'set-practice', organizationId, ...practice]);
    expect(result).toEqual({ organization_id: organizationId, name: 'Harbour Clinic', practice: { street: '12 Smith St', suburb: 'Fitzroy', state: 'VIC', postcode: '3065', phone: '0391234567' } });
    const { organization, entries } = await stored(organizationId);
    expect(organization).toEqual({ practice_street: '12 Smith St', practice_suburb: 'Fitzroy', practice_state: 'VIC', practice_postcode: '3065', practice_phone: '0391234567' });
    expect(entries).toEqual([{ action: 'admin.organization_practice', outcome: 'success' }]);
    const text = await runErx(cli.env, ['org', 'set-practice', organizationId, ...practice.slice(0, 8), '--phone', '1300 123 456']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('practice:         12 Smith St, Fitzroy VIC 3065');
    expect(text.stdout).toContain('phone:            1300123456');
  }, 60_000);

  // Each refusal is one CLI process; the whole set of input rules is unit-tested in organization-practice.test.ts.
  it.each([
    [['--state', 'Victoria'], /the state must be one of NSW, VIC, QLD, WA, SA, TAS, ACT, NT, got "Victoria"/],
    [['--phone', '12345'], /the phone number must be an Australian number/],
  ])('refuses %j with one clear line, changing nothing', async (override, message) => {
    const args = [...practice];
    args[args.indexOf(override[0]!) + 1] = override[1]!;
    const before = await stored(organizationId);
    expectOneLineRefusal(await runErx(cli.env, ['org', 'set-practice', organizationId, ...args]), message);
    expect(await stored(organizationId)).toEqual(before);
  }, 60_000);

  it('refuses an unknown organization, and a command without every part', async () => {
    expectOneLineRefusal(await runErx(cli.env, ['org', 'set-practice', '7d8a2f4e-1111-4a4a-8a8a-000000000000', ...practice]), /organization 7d8a2f4e-1111-4a4a-8a8a-000000000000 not found/);
    expectOneLineRefusal(await runErx(cli.env, ['org', 'set-practice', organizationId, ...practice.slice(0, 8)]), /required option '--phone <number>'/);
  }, 60_000);
});
