import { describe, expect, it } from 'vitest';
import {
  changesIdentity,
  checkPrescriberTypeRule,
  checkProviderFormats,
  detailColumnsOf,
  fieldsNeededByType,
  PRESCRIBER_TYPES,
  resolveIdentity,
  type ProviderRecordRow,
} from './provider-details.ts';

const stored: ProviderRecordRow = {
  user_id: 'u1',
  organization_id: 'o1',
  status: 'active',
  hpii_number: '8003619166667284',
  given_name: 'Anna',
  family_name: 'Smith',
  date_of_birth: '1970-01-01',
  sex: 'F',
  phone: null,
  title: null,
  prescriber_number: '1234567',
  provider_number: null,
  prescriber_type: 'M',
  ahpra_number: null,
  qualifications: 'MBBS',
  hospital_provider_number: null,
  erx_entity_id: null,
  verified_at: '2026-01-01T00:00:00.000Z',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

describe('the fields a prescriber type needs', () => {
  it.each(Object.keys(PRESCRIBER_TYPES).filter((type) => type !== 'T'))('type %s needs qualifications and prescriber_number', (type) => {
    expect(fieldsNeededByType(type)).toEqual(['qualifications', 'prescriber_number']);
  });

  it('type T needs qualifications only', () => {
    expect(fieldsNeededByType('T')).toEqual(['qualifications']);
  });

  it.each([[null], [undefined], ['']])('no type (%j) needs prescriber_number only', (type) => {
    expect(fieldsNeededByType(type)).toEqual(['prescriber_number']);
  });
});

describe('the prescriber type rule on a request', () => {
  it('does not apply without prescriber_type', () => {
    expect(checkPrescriberTypeRule({ prescriber_number: '1' })).toEqual([]);
  });

  it('reports every missing field in one entry on provider_details', () => {
    expect(checkPrescriberTypeRule({ prescriber_type: 'D', qualifications: '' })).toEqual([
      { field: 'provider_details', message: expect.stringMatching(/^qualifications and prescriber_number are required with prescriber_type D/), code: 'VALIDATION_ERROR' },
    ]);
  });

  it('is satisfied by the fields the type needs', () => {
    expect(checkPrescriberTypeRule({ prescriber_type: 'U', qualifications: 'RN', prescriber_number: '9' })).toEqual([]);
    expect(checkPrescriberTypeRule({ prescriber_type: 'T', qualifications: 'BPod' })).toEqual([]);
  });
});

describe('calendar dates', () => {
  it.each([['1970-02-29', 1], ['2000-02-29', 0], ['1970-13-01', 1], ['1970-01-01', 0]])('%s gives %i issue(s)', (date, count) => {
    expect(checkProviderFormats({ date_of_birth: date })).toHaveLength(count);
  });

  it('leaves a value that fails the pattern to the schema', () => {
    expect(checkProviderFormats({ date_of_birth: '01/01/1970' })).toEqual([]);
  });
});

describe('the identity set', () => {
  it('takes request values first and stored values otherwise', () => {
    expect(resolveIdentity({ family_name: 'Smyth' }, stored)).toEqual({
      identity: { hpii_number: '8003619166667284', given_name: 'Anna', family_name: 'Smyth', date_of_birth: '1970-01-01', sex: 'F' },
      missing: [],
    });
  });

  it('names the fields missing from both, in the spec order', () => {
    expect(resolveIdentity({ sex: 'F', given_name: 'Anna' }, undefined)).toEqual({ identity: undefined, missing: ['hpii_number', 'family_name', 'date_of_birth'] });
  });

  it('sees a change only where a sent value differs from the stored one', () => {
    expect(changesIdentity({ given_name: 'Anna', prescriber_number: '2' }, stored)).toBe(false);
    expect(changesIdentity({ sex: 'N' }, stored)).toBe(true);
    expect(changesIdentity({ hpii_number: '8003610000010401' }, stored)).toBe(true);
  });
});

describe('detail columns', () => {
  it('writes only the detail fields sent; an empty one becomes null', () => {
    expect(detailColumnsOf({ title: '', phone: '0412345678', given_name: 'Anna' })).toEqual({ title: null, phone: '0412345678' });
  });
});
