// `erx hi check [--json]` through the compiled CLI, in sandbox against the simulator's demo
// providers: each answer printed (the HPI-I masked, no demographic), exit 0 only when the lookup
// was answered, every missing setting named at once, and the lookup audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HI_DEMO_PROVIDERS } from '../../src/hi-service/index.ts';
import { type HiProviderFixture } from '../../src/hi-service/hi-fixture-file.ts';
import { createCliEnvironment, runErx, runErxJson, type CliEnvironment } from './cli-helpers.ts';

const HPIO = '8003621566684455';

function checkEnv(person: HiProviderFixture): Record<string, string> {
  return {
    ERX_HI_CHECK_HPIO: HPIO,
    ERX_HI_CHECK_HPII: person.hpii_number,
    ERX_HI_CHECK_FAMILY_NAME: person.family_name,
    ERX_HI_CHECK_GIVEN_NAME: person.given_name,
    ERX_HI_CHECK_DATE_OF_BIRTH: person.date_of_birth,
    ERX_HI_CHECK_SEX: person.sex,
  };
}

describe('erx hi check', { timeout: 120_000 }, () => {
  let cli: CliEnvironment;
  beforeAll(() => {
    cli = createCliEnvironment();
  });
  afterAll(() => cli.cleanup());

  const anna = HI_DEMO_PROVIDERS.verified;

  it('prints the answer for the configured provider, the HPI-I masked and no demographic', async () => {
    const result = await runErx({ ...cli.env, ...checkEnv(anna) }, ['hi', 'check']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('HI Service (simulator, the sandbox simulator): verified in');
    expect(result.stdout).toContain(`HPI-I ****${anna.hpii_number.slice(-4)} on behalf of HPI-O ${HPIO}`);
    for (const value of [anna.hpii_number, anna.family_name, anna.given_name, anna.date_of_birth]) expect(result.stdout + result.stderr).not.toContain(value);
  });

  it.each([
    ['no_match', { ...anna, date_of_birth: '1970-01-02' }],
    ['no_status', HI_DEMO_PROVIDERS.withoutStatus],
    ['inactive', HI_DEMO_PROVIDERS.deactivated],
    ['inactive', HI_DEMO_PROVIDERS.retired],
  ] as const)('answers %s with exit 0: the HI Service answered', async (answer, person) => {
    const json = await runErxJson({ ...cli.env, ...checkEnv(person) }, ['hi', 'check']);
    expect(json).toMatchObject({ adapter: 'simulator', answered: true, answer, hpii: `****${person.hpii_number.slice(-4)}`, hpio: HPIO });
  });

  it('exits 1 on a rejection, printing its severity and code', async () => {
    const result = await runErx({ ...cli.env, ...checkEnv(HI_DEMO_PROVIDERS.rejected) }, ['hi', 'check', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ answered: false, answer: 'rejected', severity: 'Error', code: 'HI_FIXTURE_REJECTED' });
  });

  it('exits 1 when the HI Service cannot be reached', async () => {
    const result = await runErx({ ...cli.env, ...checkEnv(HI_DEMO_PROVIDERS.unreachable) }, ['hi', 'check']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(': unreachable (HI Service unreachable');
  });

  it('takes the provider from flags over the settings', async () => {
    const flags = ['--hpio', HPIO, '--hpii', anna.hpii_number, '--family-name', anna.family_name, '--given-name', anna.given_name, '--date-of-birth', anna.date_of_birth, '--sex', anna.sex];
    const json = await runErxJson({ ...cli.env, ...checkEnv({ ...anna, given_name: 'Other' }) }, ['hi', 'check', ...flags]);
    expect(json).toMatchObject({ answer: 'verified' });
  });

  it('names every missing or malformed part of the test provider at once, asking nothing', async () => {
    const missing = await runErx(cli.env, ['hi', 'check']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe(
      'erx: erx hi check needs the test provider: ERX_HI_CHECK_HPIO / --hpio, ERX_HI_CHECK_HPII / --hpii, ERX_HI_CHECK_FAMILY_NAME / --family-name, ERX_HI_CHECK_GIVEN_NAME / --given-name, ERX_HI_CHECK_DATE_OF_BIRTH / --date-of-birth, ERX_HI_CHECK_SEX / --sex not given',
    );
    const malformed = await runErx({ ...cli.env, ...checkEnv(anna), ERX_HI_CHECK_HPII: '8003619166667285', ERX_HI_CHECK_SEX: 'X' }, ['hi', 'check']);
    expect(malformed.stderr).toContain('ERX_HI_CHECK_HPII / --hpii is not a valid HPI-I; ERX_HI_CHECK_SEX / --sex is not one of M, F, N, I');
    expect(malformed.stderr).not.toContain('8003619166667285');
  });

  it('refuses in production without the SOAP settings, naming each', async () => {
    const production = { ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: 'unused', ERX_SECRET_KEY: 'unused', ERX_CONFORMANCE_ID: 'ERX-TEST-CONFORMANCE-0001' };
    const result = await runErx({ ...cli.env, ...production, ...checkEnv(anna) }, ['hi', 'check']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ERX_HI=soap needs settings that are not set: ERX_HI_ENDPOINT, ERX_HI_CERT, ERX_HI_CERT_PASSPHRASE (or ERX_HI_CERT_PASSPHRASE_FILE), ERX_HI_CA, ERX_HI_SIGNER_SPKI, ERX_HI_VENDOR_QUALIFIER, ERX_HI_VENDOR_ID, ERX_HI_PRODUCT_NAME, ERX_HI_PRODUCT_VERSION');
  });

  it('leaves an hi.provider_verify entry naming the HPI-O, the HPI-I masked', async () => {
    await runErx({ ...cli.env, ...checkEnv(anna) }, ['hi', 'check']);
    const entries = await runErxJson(cli.env, ['audit', 'list', '--action', 'hi.provider_verify']);
    expect(entries[0]).toMatchObject({ action: 'hi.provider_verify', actor_kind: 'operator', hpio: HPIO, outcome: 'success' });
    expect(entries[0].detail).toMatchObject({ hpii: `****${anna.hpii_number.slice(-4)}`, hiResult: 'verified' });
  });

  it.each([
    [{}, 'ERX_HI=soap needs settings that are not set: ERX_HI_ENDPOINT, ERX_HI_CERT, ERX_HI_CERT_PASSPHRASE (or ERX_HI_CERT_PASSPHRASE_FILE), ERX_HI_CA, ERX_HI_SIGNER_SPKI, ERX_HI_VENDOR_QUALIFIER, ERX_HI_VENDOR_ID, ERX_HI_PRODUCT_NAME, ERX_HI_PRODUCT_VERSION'],
    [{ ERX_HI: 'simulator' }, 'ERX_HI=simulator is refused in production mode'],
  ])('erx serve in production with %o refuses to start, saying why', async (hi, message) => {
    const production = { ERX_MODE: 'production', ERX_JWT_PRIVATE_KEY: 'unused', ERX_SECRET_KEY: 'unused', ERX_CONFORMANCE_ID: 'ERX-TEST-CONFORMANCE-0001', PORT: '0' };
    const result = await runErx({ ...cli.env, ...production, ...hi }, ['serve']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });
});
