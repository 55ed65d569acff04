import { describe, expect, it } from 'vitest';
import { judgeRules, PRESCRIPTION_RULES, type PbsItem, type RuleFacts } from './prescription-rules.ts';

const item = (overrides: Partial<PbsItem>): PbsItem => ({
  pbs_code: '1234K',
  drug_name: 'Example',
  brand_names: ['Example brand'],
  form: 'tablet',
  strength: '10 mg',
  benefit_type: 'unrestricted',
  program_code: 'GE',
  rpbs_only: false,
  max_quantity: 30,
  max_repeats: 5,
  restriction_text: '',
  streamlined_codes: [],
  schedule_code: '3963',
  ...overrides,
});

const UNRESTRICTED = item({});
const AUTHORITY = item({ pbs_code: '2345L', benefit_type: 'authority_required', max_quantity: 60, max_repeats: 2 });
const STREAMLINED = item({ pbs_code: '3456M', benefit_type: 'streamlined', streamlined_codes: ['4254', '4255'] });
const RPBS = item({ pbs_code: '4567N', program_code: 'R1', rpbs_only: true });

const facts = (overrides: Partial<RuleFacts>): RuleFacts => ({
  pbsCode: overrides.item?.pbs_code,
  item: undefined,
  privatePrescription: false,
  quantity: 10,
  repeats: 0,
  authorityNumber: undefined,
  phoneApprovalNumber: undefined,
  patientHasDvaFileNumber: false,
  ...overrides,
});

type Case = { name: string; facts: RuleFacts; broken: string[] };

const CASES: Case[] = [
  { name: 'no PBS code at all', facts: facts({}), broken: [] },
  { name: 'an unrestricted item within its maxima', facts: facts({ item: UNRESTRICTED, quantity: 30, repeats: 5 }), broken: [] },
  { name: 'a private prescription with a PBS code', facts: facts({ item: UNRESTRICTED, privatePrescription: true }), broken: ['private-carries-no-pbs-code'] },
  { name: 'a private prescription without one', facts: facts({ privatePrescription: true, quantity: 500 }), broken: [] },
  { name: 'a PBS code the Schedule does not hold', facts: facts({ pbsCode: '9999X' }), broken: ['pbs-code-in-schedule'] },
  { name: 'an RPBS item for a patient without a DVA file number', facts: facts({ item: RPBS }), broken: ['rpbs-item-needs-dva-file-number'] },
  { name: 'an RPBS item for a patient with one', facts: facts({ item: RPBS, patientHasDvaFileNumber: true }), broken: [] },
  { name: 'an authority item without an approval number', facts: facts({ item: AUTHORITY }), broken: ['authority-item-needs-approval-number'] },
  { name: 'an authority item with its approval number', facts: facts({ item: AUTHORITY, authorityNumber: 'A1234567' }), broken: [] },
  { name: 'an authority item approved by telephone', facts: facts({ item: AUTHORITY, phoneApprovalNumber: '7654321' }), broken: [] },
  { name: 'a streamlined item without a code', facts: facts({ item: STREAMLINED }), broken: ['streamlined-item-needs-its-code'] },
  { name: 'a streamlined item with another item\'s code', facts: facts({ item: STREAMLINED, authorityNumber: '9999' }), broken: ['streamlined-item-needs-its-code'] },
  { name: 'a streamlined item with one of its codes', facts: facts({ item: STREAMLINED, authorityNumber: '4255' }), broken: [] },
  { name: 'a quantity over the PBS maximum', facts: facts({ item: UNRESTRICTED, quantity: 31 }), broken: ['pbs-maximum-quantity'] },
  { name: 'repeats over the PBS maximum', facts: facts({ item: UNRESTRICTED, repeats: 6 }), broken: ['pbs-maximum-repeats'] },
  { name: 'both over, with an authority approval number', facts: facts({ item: UNRESTRICTED, quantity: 120, repeats: 11, authorityNumber: 'A1234567' }), broken: [] },
  { name: 'both over, approved by telephone', facts: facts({ item: AUTHORITY, quantity: 120, repeats: 11, phoneApprovalNumber: '7654321' }), broken: [] },
  {
    name: 'a streamlined item over its maximum with only its streamlined code (no approval)',
    facts: facts({ item: STREAMLINED, quantity: 31, authorityNumber: '4254' }),
    broken: ['pbs-maximum-quantity'],
  },
  { name: 'a quantity already refused by its own limits is not judged again', facts: facts({ item: UNRESTRICTED, quantity: undefined }), broken: [] },
  {
    name: 'an RPBS authority item over its maximum, without anything',
    facts: facts({ item: { ...AUTHORITY, rpbs_only: true }, quantity: 61 }),
    broken: ['rpbs-item-needs-dva-file-number', 'authority-item-needs-approval-number', 'pbs-maximum-quantity'],
  },
];

describe('the prescription rules table', () => {
  it.each(CASES)('$name: breaks $broken', ({ facts: given, broken }) => {
    expect(judgeRules(given).map((found) => found.rule)).toEqual(broken);
  });

  it('has a case that breaks each rule, and one that keeps it', () => {
    const brokenSomewhere = new Set(CASES.flatMap((c) => c.broken));
    expect(PRESCRIPTION_RULES.map((r) => r.rule).filter((rule) => !brokenSomewhere.has(rule))).toEqual([]);
  });

  it.each([
    [facts({ item: AUTHORITY }), 'pbsdva_authority_number', 'is required: 2345L is an authority-required PBS item; enter its authority approval number'],
    [facts({ item: STREAMLINED }), 'pbsdva_authority_number', 'is required: 3456M is a streamlined authority item; enter one of its streamlined codes (4254, 4255)'],
    [facts({ item: STREAMLINED, authorityNumber: '1' }), 'pbsdva_authority_number', 'is not a streamlined code of 3456M (its codes: 4254, 4255)'],
    [facts({ item: UNRESTRICTED, quantity: 31 }), 'quantity', 'must not exceed 30, the PBS maximum quantity of 1234K, without an authority approval number'],
    [facts({ item: UNRESTRICTED, repeats: 6 }), 'repeats', 'must not exceed 5, the PBS maximum repeats of 1234K, without an authority approval number'],
    [facts({ item: RPBS }), 'pbs_code', 'is 4567N, a Repatriation (RPBS) item: it can be prescribed only for a patient with a DVA file number'],
    [facts({ item: UNRESTRICTED, privatePrescription: true }), 'pbs_code', 'must be left out of a private prescription (private_prescription is true)'],
    [facts({ pbsCode: '9999X' }), 'pbs_code', 'is not an item of the current PBS Schedule (9999X)'],
  ])('says which field and why: %#', (given, field, message) => {
    expect(judgeRules(given)).toEqual([expect.objectContaining({ field, message })]);
  });
});
