import { describe, expect, it } from 'vitest';
import { fieldFromPointer, issuesFromAjv, MAX_REPORTED_ISSUES } from './error-handler.ts';

describe('validation issue fields', () => {
  it.each([
    ['', ''],
    ['/family_name', 'family_name'],
    ['/australian_street_address/postcode', 'australian_street_address.postcode'],
    ['/scope/0', 'scope[0]'],
    ['/items/3/quantity', 'items[3].quantity'],
    ['/a~1b/c~0d', 'a/b.c~d'],
  ])('turns the pointer %j into the field %j', (pointer, field) => {
    expect(fieldFromPointer(pointer)).toBe(field);
  });

  it('names a missing property by its full path with REQUIRED_FIELD', () => {
    expect(issuesFromAjv([{ instancePath: '/provider_details', keyword: 'required', params: { missingProperty: 'sex' } }])).toEqual([
      { field: 'provider_details.sex', message: 'provider_details.sex is required', code: 'REQUIRED_FIELD' },
    ]);
  });

  it('lists the allowed values of an enum', () => {
    expect(issuesFromAjv([{ instancePath: '/sex', keyword: 'enum', params: { allowedValues: ['M', 'F'] }, message: 'x' }])[0]!.message).toBe(
      'must be one of: M, F',
    );
  });

  it('reports a failure of the whole body against the field "body" and caps the count', () => {
    const many = Array.from({ length: 500 }, () => ({ instancePath: '', keyword: 'type', params: {}, message: 'must be object' }));
    const issues = issuesFromAjv(many);
    expect(issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(issues[0]).toEqual({ field: 'body', message: 'must be object', code: 'VALIDATION_ERROR' });
  });
});
