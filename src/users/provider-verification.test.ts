import { describe, expect, it } from 'vitest';
import type { AuditEvent, AuditTrail } from '../audit/index.ts';
import { HI_DEMO_PROVIDERS, createHiSandboxSimulator } from '../hi-service/index.ts';
import { HI_DEMO_FIXTURES } from '../hi-service/hi-demo-fixtures.ts';
import { ApiError } from '../platform/http/api-error.ts';
import type { ProviderRecordRow } from './provider-details.ts';
import { askHiService, checkHpiiNumber, checkOrganizationHpio, needsHiLookup } from './provider-verification.ts';

const active = {
  status: 'active',
  hpii_number: '8003619166667284',
  given_name: 'Anna',
  family_name: 'Smith',
  date_of_birth: '1970-01-01',
  sex: 'F',
  prescriber_number: '1',
} as ProviderRecordRow;

const HI_CONTEXT = { hpio: '8003621566684455', userId: 'user-of-the-test' };

describe('when the HI lookup runs (provider_details sent)', () => {
  it.each([
    ['no record', undefined, {}, true],
    ['an inactive record, nothing changed', { ...active, status: 'inactive' }, {}, true],
    ['an active record, HPI-I changed', active, { hpii_number: '8003610000010401' }, true],
    ['an active record, given_name changed', active, { given_name: 'Annie' }, true],
    ['an active record, family_name changed', active, { family_name: 'Smyth' }, true],
    ['an active record, date_of_birth changed', active, { date_of_birth: '1970-01-02' }, true],
    ['an active record, sex changed', active, { sex: 'N' }, true],
    ['an active record, details only', active, { prescriber_number: '2', title: 'Dr' }, false],
    ['an active record, identity sent unchanged', active, { hpii_number: active.hpii_number, sex: 'F' }, false],
    ['an active record, nothing sent', active, {}, false],
  ] as const)('%s: %s', (_case, stored, patch, expected) => {
    expect(needsHiLookup(stored, patch)).toBe(expected);
  });
});

describe('checks before a lookup', () => {
  it('refuses a malformed HPI-I with INVALID_USER_PARAMETERS and accepts an absent one', () => {
    expect(() => checkHpiiNumber('8003619166667285', 'hpii_number')).toThrow(expect.objectContaining({ code: 'INVALID_USER_PARAMETERS', status: 400 }));
    expect(() => checkHpiiNumber(undefined, 'hpii_number')).not.toThrow();
  });

  it.each([[null], [''], ['8003624166667004'], ['8003619166667284']])('refuses the organization HPI-O %j', (hpio) => {
    expect(() => checkOrganizationHpio(hpio)).toThrow(ApiError);
  });

  it('accepts a valid HPI-O', () => {
    expect(() => checkOrganizationHpio('8003624166667003')).not.toThrow();
  });
});

describe('asking the HI Service', () => {
  const simulator = createHiSandboxSimulator({ fixtures: HI_DEMO_FIXTURES });
  const identity = ({ fault: _fault, ...person }: { fault?: string } & Record<string, string>) => person as never;
  // The trail as the lookup uses it: each entry noted, in order.
  const noted: AuditEvent[] = [];
  const lookup = { hiService: simulator, audit: { noteAccess: async (event: AuditEvent) => void noted.push(event) } as AuditTrail };
  const USER = '0b9f1c1e-6a47-4a33-9c2e-2d7b0c9e4f10';

  it('passes verified, no_match and no_status through, noting each lookup with the HPI-I masked', async () => {
    noted.length = 0;
    expect(await askHiService(lookup, HI_CONTEXT, identity(HI_DEMO_PROVIDERS.verified), USER)).toBe('verified');
    expect(await askHiService(lookup, HI_CONTEXT, identity({ ...HI_DEMO_PROVIDERS.verified, sex: 'M' }), USER)).toBe('no_match');
    expect(await askHiService(lookup, HI_CONTEXT, identity(HI_DEMO_PROVIDERS.withoutStatus), USER)).toBe('no_status');
    expect(noted.map((event) => [event.action, event.outcome, event.targetUserId, event.detail?.hiResult])).toEqual([
      ['hi.provider_verify', 'success', USER, 'verified'],
      ['hi.provider_verify', 'success', USER, 'no_match'],
      ['hi.provider_verify', 'success', USER, 'no_status'],
    ]);
    expect(noted[0]!.detail).toMatchObject({ hpii: `****${HI_DEMO_PROVIDERS.verified.hpii_number.slice(-4)}`, durationMs: expect.any(Number) });
    expect(JSON.stringify(noted)).not.toContain(HI_DEMO_PROVIDERS.verified.hpii_number);
  });

  it("turns an unreachable service into a 500 INTERNAL_ERROR, noted with outcome 'error'", async () => {
    noted.length = 0;
    await expect(askHiService(lookup, HI_CONTEXT, identity(HI_DEMO_PROVIDERS.unreachable), USER)).rejects.toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    expect(noted).toMatchObject([{ action: 'hi.provider_verify', outcome: 'error', targetUserId: USER, detail: { hiResult: 'unreachable' } }]);
  });
});
