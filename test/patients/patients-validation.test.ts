// The patient input: one 422 listing every schema and identifier-format failure with dotted
// field names, the address alias, partner_id ownership, limits, and unknown fields ignored.
import { describe, expect, it } from 'vitest';
import { givenPartner, requestToken, clientFor, useTestApp } from '../given.ts';
import { countPatients, DEMO, patientBody } from './patients-given.ts';

const { t, c: api } = useTestApp({});

const wood = DEMO.activeVerified;
const validBody = () => patientBody(api.g, wood, { medicare_card_number: wood.medicare_card_number, medicare_irn: '1' });

interface Issue {
  field: string;
  message: string;
  code: string;
}

async function issuesOf(body: unknown, send = api.precheck): Promise<Issue[]> {
  const response = await send(body);
  expect(response.statusCode, response.body).toBe(422);
  const envelope = response.json();
  expect(envelope).toMatchObject({ success: false, code: 'VALIDATION_ERROR', error: { type: expect.stringMatching(/\/validation-error$/) } });
  return envelope.error.validation;
}

const fieldsOf = (issues: Issue[]) => issues.map((issue) => issue.field).sort();

describe('one 422 with every failure', () => {
  const broken = () => ({
    partner_patient_id: 'PMS-1',
    partner_id: 'someone-else',
    given_name: 'Jessica',
    date_of_birth: '2027-01-01',
    sex: 'X',
    ihi_number: '8003601240022570',
    medicare_card_number: '2950141871',
    medicare_irn: '0',
    dva_file_number: ' ',
    phone: '0298765432',
    email: 'not-an-email',
    dva_card_color: 'purple',
    indigenous_type: 'unknown',
    ctg_eligible: 'yes',
    australian_street_address: { street_number: '12', street_name: 'Smith St', suburb: 'Fitzroy', state: 'XYZ', postcode: '306' },
    international_address: { address_line: '1 Queen St' },
  });

  it('reports schema failures and identifier-format failures together, with dotted field names', async () => {
    const issues = await issuesOf(broken());
    expect(fieldsOf(issues)).toEqual(
      [
        'australian_street_address.postcode',
        'australian_street_address.state',
        'ctg_eligible',
        'date_of_birth',
        'dva_card_color',
        'dva_file_number',
        'email',
        'family_name',
        'ihi_number',
        'indigenous_type',
        'international_address.country',
        'medicare_card_number',
        'medicare_irn',
        'partner_id',
        'phone',
        'sex',
      ].sort(),
    );
    const byField = Object.fromEntries(issues.map((issue) => [issue.field, issue]));
    expect(byField.family_name).toEqual({ field: 'family_name', message: 'family_name is required', code: 'REQUIRED_FIELD' });
    expect(byField['international_address.country']!.code).toBe('REQUIRED_FIELD');
    expect(byField.sex!.message).toBe('must be one of: M, F, N, I');
    expect(byField.date_of_birth!.message).toBe('must not be in the future');
    expect(byField.ihi_number!.message).toContain('check digit');
    expect(byField.medicare_card_number!.message).toContain('check digit');
    expect(byField.phone!.message).toContain('landlines are not accepted');
  });

  it('gives create the same 422 and creates nothing', async () => {
    const before = await countPatients(t, api.g.organizationId);
    const precheck = await issuesOf(broken());
    const create = await issuesOf(broken(), api.create);
    expect(create).toEqual(precheck);
    expect(await countPatients(t, api.g.organizationId)).toBe(before);
  });

  it('reports each field once even when the schema already rejected it', async () => {
    const issues = await issuesOf({ ...validBody(), ihi_number: '80036012400225790', date_of_birth: '1985-02-30' });
    expect(issues).toEqual([
      { field: 'date_of_birth', message: 'must match format "date"', code: 'VALIDATION_ERROR' },
      { field: 'ihi_number', message: 'must NOT have more than 16 characters', code: 'VALIDATION_ERROR' },
    ]);
  });

  it('answers a body that is not an object with 422', async () => {
    expect(await issuesOf([validBody()])).toEqual([{ field: 'body', message: 'must be object', code: 'VALIDATION_ERROR' }]);
  });
});

describe('identifier formats', () => {
  it.each([
    ['ihi_number', '8003601240022578', '8003601240022579'],
    ['ihi_number', '8003611234567892', '8003601240022579'],
    ['medicare_card_number', '2950141871', '2950141861'],
    ['medicare_card_number', '1950141861', '2950141861'],
    ['medicare_irn', '0', '9'],
    ['dva_file_number', '   ', 'DVA123456'],
    ['phone', '0398765432', '0412345678'],
    ['phone', '04 1234 5678', '+61412345678'],
    ['phone', '0612345678', '61512345678'],
    ['email', 'jane@localhost', 'jane.citizen@example.com.au'],
    ['date_of_birth', '2026-11-23', '2026-11-22'],
  ])('rejects %s %j and accepts %j', async (field, bad, good) => {
    expect(await issuesOf({ ...validBody(), [field]: bad })).toEqual([{ field, message: expect.any(String), code: 'VALIDATION_ERROR' }]);
    expect((await api.precheck({ ...validBody(), [field]: good })).statusCode).toBe(200);
  });

  it("accepts any DVA file number, such as the vendor collection's DVA123456: one the HI Service does not hold finds nothing", async () => {
    const body = patientBody(api.g, wood, { dva_file_number: 'DVA123456' });
    const precheck = await api.precheck(body);
    expect(precheck.statusCode, precheck.body).toBe(200);
    expect(precheck.json().data).toMatchObject({ outcome: 'no_match', searched_path: 'dva', create_would_succeed: true });
    const created = await api.create(body);
    expect(created.statusCode).toBe(201);
    expect(created.json().data.has_ihi).toBe(false);
    expect(await issuesOf({ ...body, dva_file_number: 'D'.repeat(21) })).toEqual([
      { field: 'dva_file_number', message: expect.any(String), code: 'VALIDATION_ERROR' },
    ]);
  });

  it('judges a future date of birth by the Australian calendar, not UTC', async () => {
    // 14:30 UTC on 22 November is already 23 November in Sydney (UTC+11 in summer).
    t.clock.advanceSeconds(14.5 * 3600);
    try {
      const later = clientFor(t, api.g, await requestToken(t, api.g));
      expect((await later.precheck({ ...validBody(), date_of_birth: '2026-11-23' })).statusCode).toBe(200);
      expect(await issuesOf({ ...validBody(), date_of_birth: '2026-11-24' }, later.precheck)).toHaveLength(1);
    } finally {
      t.clock.advanceSeconds(-14.5 * 3600);
    }
  });

  it('rejects blank names', async () => {
    expect(fieldsOf(await issuesOf({ ...validBody(), given_name: '   ', family_name: ' ' }))).toEqual(['family_name', 'given_name']);
  });
});

describe('address alias', () => {
  const address = DEMO.streetAddressOnly.australian_street_address;

  it('accepts australian_address as australian_street_address and searches on it', async () => {
    const response = await api.precheck(patientBody(api.g, DEMO.streetAddressOnly, { australian_address: address }));
    expect(response.json().data).toMatchObject({ outcome: 'ihi_found', searched_path: 'australian-street-address' });
  });

  it('rejects a body carrying both keys', async () => {
    const issues = await issuesOf(patientBody(api.g, DEMO.streetAddressOnly, { australian_address: address, australian_street_address: address }));
    expect(issues).toEqual([{ field: 'australian_address', message: expect.stringContaining('not both'), code: 'VALIDATION_ERROR' }]);
  });

  it('validates the alias like the original, with its own dotted names', async () => {
    const issues = await issuesOf(patientBody(api.g, wood, { australian_address: { ...address, postcode: 'ABCD' } }));
    expect(fieldsOf(issues)).toEqual(['australian_address.postcode']);
  });
});

describe('partner_id', () => {
  it('must be a registered partner', async () => {
    const issues = await issuesOf({ ...validBody(), partner_id: 'never-registered' });
    expect(issues).toEqual([{ field: 'partner_id', message: expect.any(String), code: 'VALIDATION_ERROR' }]);
    expect(issues[0]!.message).not.toContain(api.g.partnerId);
  });

  it("must be the caller's own, not another registered partner", async () => {
    const other = await givenPartner(t);
    expect(fieldsOf(await issuesOf({ ...validBody(), partner_id: other.partner_id }))).toEqual(['partner_id']);
    expect(fieldsOf(await issuesOf({ ...validBody(), partner_id: api.g.partnerId.toUpperCase() }))).toEqual(['partner_id']);
  });
});

describe('limits and tolerance', () => {
  it.each([
    ['partner_patient_id', 'p'.repeat(151)],
    ['given_name', 'g'.repeat(256)],
    ['family_name', 'f'.repeat(256)],
    ['concession_pension_number', 'c'.repeat(51)],
    ['racf_id', 'r'.repeat(51)],
    ['email', `${'e'.repeat(250)}@x.com`],
  ])('caps the length of %s', async (field, value) => {
    expect(await issuesOf({ ...validBody(), [field]: value })).toEqual([
      { field, message: expect.stringMatching(/must NOT have more than \d+ characters/), code: 'VALIDATION_ERROR' },
    ]);
  });

  it('caps the number of properties of the body and of an address', async () => {
    const crowded = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`extra_${i}`, i]));
    expect(fieldsOf(await issuesOf({ ...validBody(), ...crowded }))).toEqual(['body']);
    const address = { ...DEMO.activeVerified.australian_street_address, ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`x${i}`, i])) };
    expect(fieldsOf(await issuesOf({ ...validBody(), australian_street_address: address }))).toEqual(['australian_street_address']);
  });

  it('ignores unknown fields', async () => {
    const response = await api.precheck({ ...validBody(), no_given_name: false, pms_internal: { a: 1 } });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.outcome).toBe('ihi_found');
  });

  it('accepts every optional field of the table at once', async () => {
    const body = {
      ...validBody(),
      medicare_valid_to: '2030-01-31',
      dva_file_number: 'NX123456',
      dva_card_color: 'gold',
      concession_pension_number: '123456789A',
      entitlement_number: 'E123',
      racf_id: 'RACF-9',
      ctg_eligible: true,
      indigenous_type: 'torres_strait_islander',
      email: wood.email,
      phone: wood.phone,
      australian_street_address: wood.australian_street_address,
      international_address: { address_line: '1 Queen St', country: 'NZ', postcode: '1010', state_province: 'Auckland' },
    };
    expect((await api.precheck(body)).statusCode).toBe(200);
  });
});
