import { describe, expect, it } from 'vitest';
import { canPrescribe, CAN_PRESCRIBE_CONDITIONS, remedyOf, unmetPrescribingConditions, type ReadinessFacts } from './escript-readiness.ts';
import type { ProviderRecordRow } from './provider-details.ts';

const record = { status: 'active', prescriber_type: 'M', prescriber_number: '1234567', qualifications: 'MBBS' } as ProviderRecordRow;
const ready: ReadinessFacts = { enabled: true, roles: ['provider'], record, organizationHpio: '8003624166667003' };

describe('can_prescribe', () => {
  it('is true when every condition holds', () => {
    expect(canPrescribe(ready)).toBe(true);
    expect(CAN_PRESCRIBE_CONDITIONS).toHaveLength(5);
  });

  it.each([
    ['disabled', { enabled: false }],
    ['not a provider', { roles: ['admin', 'rx_queue_manager'] }],
    ['no record', { record: undefined }],
    ['an inactive record', { record: { ...record, status: 'inactive' } }],
    ['type M without prescriber_number', { record: { ...record, prescriber_number: null } }],
    ['no type and no prescriber_number', { record: { ...record, prescriber_type: null, prescriber_number: null } }],
    ['a type without qualifications', { record: { ...record, qualifications: null } }],
    ['no HPI-O', { organizationHpio: null }],
    ['an invalid HPI-O', { organizationHpio: '8003624166667004' }],
  ] as const)('is false with %s', (_case, change) => {
    expect(canPrescribe({ ...ready, ...change } as ReadinessFacts)).toBe(false);
  });

  it('names what to do about each unmet condition', () => {
    const unmet = unmetPrescribingConditions({ ...ready, enabled: false, organizationHpio: null });
    expect(unmet).toEqual(['the user is enabled', 'the organization has a valid HPI-O']);
    expect(unmet.map(remedyOf)).toEqual([expect.stringMatching(/^Ask an owner or admin .* enable your account/), expect.stringMatching(/operator .* HPI-O/)]);
    expect(new Set(CAN_PRESCRIBE_CONDITIONS.map((entry) => entry.remedy)).size).toBe(CAN_PRESCRIBE_CONDITIONS.length);
  });

  it.each([
    ['type T without prescriber_number', { ...record, prescriber_type: 'T', prescriber_number: null }],
    ['no type, with prescriber_number and no qualifications', { ...record, prescriber_type: null, qualifications: null }],
  ])('is true with %s', (_case, changed) => {
    expect(canPrescribe({ ...ready, record: changed as ProviderRecordRow })).toBe(true);
  });
});
