// `erx partner set-frame-origins <partner_id> <origin>...`: the origins allowed to frame the
// portal for a partner's users. Exact origins only (https only in production); the list is
// replaced each time; --none clears it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnboardingError, setPartnerFrameOrigins } from '../../src/onboarding/index.ts';
import { createCliEnvironment, runErx, runErxJson, type CliEnvironment } from '../cli/cli-helpers.ts';
import { givenPartner, useTestApp } from '../given.ts';
import { productionEnv } from '../prescriptions/prescriptions-given.ts';
import { createTestApp } from '../test-app.ts';

const { t } = useTestApp({});

const storedOrigins = async (partnerId: string) =>
  JSON.parse((await t.deps.database.selectFrom('partners').select('frame_origins').where('id', '=', partnerId).executeTakeFirstOrThrow()).frame_origins) as string[];

describe('setPartnerFrameOrigins', () => {
  it('stores exact origins, normalised and without duplicates, replacing the list', async () => {
    const partner = await givenPartner(t);
    expect(await storedOrigins(partner.partner_id)).toEqual([]);
    const result = await setPartnerFrameOrigins(t.features.onboarding, partner.partner_id, ['https://PMS.example.com/', 'https://pms.example.com:443', 'http://127.0.0.1:8080']);
    expect(result).toEqual({ partner_id: partner.partner_id, frame_origins: ['https://pms.example.com', 'http://127.0.0.1:8080'] });
    expect(await storedOrigins(partner.partner_id)).toEqual(['https://pms.example.com', 'http://127.0.0.1:8080']);
    await setPartnerFrameOrigins(t.features.onboarding, partner.partner_id, []);
    expect(await storedOrigins(partner.partner_id)).toEqual([]);
  });

  it.each([
    'https://pms.example.com/app',
    'https://*.example.com',
    'pms.example.com',
    'https://pms.example.com?x=1',
    'https://user@pms.example.com',
    "https://pms.example.com; script-src 'unsafe-inline'",
    'javascript:alert(1)',
    'data:text/html,hi',
    'ftp://pms.example.com',
    'https://a.example;x',
    "https://a.example;script-src:'unsafe-inline'",
    'https://a.example,b.example',
    'https://a.example%20b',
    'https://a_b.example',
    'https://a..example',
  ])('refuses %j, changing nothing', async (origin) => {
    const partner = await givenPartner(t);
    await setPartnerFrameOrigins(t.features.onboarding, partner.partner_id, ['https://kept.example']);
    await expect(setPartnerFrameOrigins(t.features.onboarding, partner.partner_id, ['https://fine.example', origin])).rejects.toThrow(OnboardingError);
    expect(await storedOrigins(partner.partner_id)).toEqual(['https://kept.example']);
  });

  it('refuses an unknown partner, and more than 20 origins', async () => {
    await expect(setPartnerFrameOrigins(t.features.onboarding, 'nobody', ['https://a.example'])).rejects.toThrow('partner nobody not found');
    const partner = await givenPartner(t);
    const many = Array.from({ length: 21 }, (_, i) => `https://a${i}.example`);
    await expect(setPartnerFrameOrigins(t.features.onboarding, partner.partner_id, many)).rejects.toThrow('at most 20 frame origins');
  });

  it('takes only https origins in production', async () => {
    const production = await createTestApp({ env: productionEnv() });
    try {
      const partner = await givenPartner(production);
      await expect(setPartnerFrameOrigins(production.features.onboarding, partner.partner_id, ['http://pms.example.com'])).rejects.toThrow(/must use https: in production mode/);
      expect((await setPartnerFrameOrigins(production.features.onboarding, partner.partner_id, ['https://pms.example.com'])).frame_origins).toEqual(['https://pms.example.com']);
    } finally {
      await production.close();
    }
  });
});

describe('erx partner set-frame-origins', () => {
  let cli: CliEnvironment;
  beforeAll(() => {
    cli = createCliEnvironment();
  });
  afterAll(() => cli.cleanup());

  it('sets, replaces and clears the list', async () => {
    await runErxJson(cli.env, ['partner', 'create', 'acme-pms']);
    const set = await runErx(cli.env, ['partner', 'set-frame-origins', 'acme-pms', 'https://pms.acme.example', 'http://localhost:8080']);
    expect(set).toMatchObject({ code: 0, stdout: 'partner_id:     acme-pms\nframe origins:  https://pms.acme.example http://localhost:8080\n' });
    expect(await runErxJson(cli.env, ['partner', 'set-frame-origins', 'acme-pms', '--none'])).toEqual({ partner_id: 'acme-pms', frame_origins: [] });
  });

  it('says what is wrong in one line', async () => {
    const bad = await runErx(cli.env, ['partner', 'set-frame-origins', 'acme-pms', 'https://pms.acme.example/app']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^erx: frame origin must be an origin like https:\/\/app\.example\.com .*got "https:\/\/pms\.acme\.example\/app"\n$/);
    const neither = await runErx(cli.env, ['partner', 'set-frame-origins', 'acme-pms']);
    expect(neither).toMatchObject({ code: 1, stderr: 'erx: name at least one origin, or --none to refuse framing\n' });
  });

  it('refuses an origin whose host is not a host name, as the service does', async () => {
    const injected = await runErx(cli.env, ['partner', 'set-frame-origins', 'acme-pms', 'https://a.example;x']);
    expect(injected).toMatchObject({ code: 1, stderr: expect.stringMatching(/^erx: frame origin must be an origin like .*got "https:\/\/a\.example;x"\n$/) });
  });
});
