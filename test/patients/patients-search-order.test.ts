// The precheck's search order: each of the seven paths finds its record, higher priority
// wins, and identifiers that find no record fall through in order (named in failed_paths).
import { describe, expect, it } from 'vitest';
import { DEMO, patientBody, medicareOf } from './patients-given.ts';
import { useTestApp } from '../given.ts';

const { t, c: api } = useTestApp({});

const wood = DEMO.activeVerified;

async function precheckData(body: unknown) {
  const response = await api.precheck(body);
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json().code).toBe('SUCCESS');
  return { data: response.json().data, message: response.json().message as string };
}

describe('search order table', () => {
  const onlyPath = {
    ihi_number: { ihi_number: wood.ihi_number },
    medicare: medicareOf(wood),
    dva: { dva_file_number: wood.dva_file_number },
    mobile: { phone: wood.phone },
    email: { email: wood.email },
    'australian-street-address': { australian_street_address: wood.australian_street_address },
    'international-address': { international_address: wood.international_address },
  };

  it.each(Object.entries(onlyPath))('path %s finds its record when it is the only identifier', async (path, identifiers) => {
    const { data } = await precheckData(patientBody(api.g, wood, identifiers));
    expect(data).toMatchObject({ outcome: 'ihi_found', searched_path: path, ihi_check_passed: true });
    expect(data).not.toHaveProperty('failed_paths');
  });

  it('tries the highest-priority identifier first when several would match', async () => {
    const all = Object.values(onlyPath).reduce((body, fields) => ({ ...body, ...fields }), {});
    expect((await precheckData(patientBody(api.g, wood, all))).data.searched_path).toBe('ihi_number');
    const { ihi_number: _ihi, ...withoutIhi } = all as Record<string, unknown>;
    expect((await precheckData(patientBody(api.g, wood, withoutIhi))).data.searched_path).toBe('medicare');
  });

  it('falls through every path that finds no record, in priority order, and names them in failed_paths and the message', async () => {
    const person = DEMO.internationalAddressOnly;
    const body = patientBody(api.g, person, {
      ihi_number: wood.ihi_number,
      ...medicareOf(wood),
      dva_file_number: 'QX654321',
      phone: '0499000111',
      email: 'nobody@example.net',
      australian_street_address: wood.australian_street_address,
      international_address: person.international_address,
    });
    const { data, message } = await precheckData(body);
    expect(data).toMatchObject({
      outcome: 'ihi_found',
      searched_path: 'international-address',
      failed_paths: ['ihi_number', 'medicare', 'dva', 'mobile', 'email', 'australian-street-address'],
    });
    expect(message).toBe(
      'IHI found using international address (no record found using IHI number, Medicare number, DVA file number, mobile number, email address or Australian street address); status ACTIVE, VERIFIED',
    );
  });

  it('verifies a supplied IHI against the demographics: an IHI of someone else finds nothing and falls back', async () => {
    const person = DEMO.mobileOnly;
    const { data, message } = await precheckData(patientBody(api.g, person, { ihi_number: wood.ihi_number, phone: person.phone }));
    expect(data).toMatchObject({ outcome: 'ihi_found', searched_path: 'mobile', failed_paths: ['ihi_number'] });
    expect(message).toBe('IHI found using mobile number (no record found using IHI number); status ACTIVE, VERIFIED');
    const asked = t.hi.searches.at(-2)!;
    expect(asked).toMatchObject({ path: 'ihi_number', ihi_number: wood.ihi_number, demographics: { family_name: 'Mobile', given_name: 'Mona' } });
  });

  it('skips a Medicare number without IRN when other identifiers exist', async () => {
    const person = DEMO.emailOnly;
    const { data } = await precheckData(patientBody(api.g, person, { medicare_card_number: wood.medicare_card_number, email: person.email }));
    expect(data).toMatchObject({ outcome: 'ihi_found', searched_path: 'email' });
    expect(data).not.toHaveProperty('failed_paths');
  });

  it('reports the paths tried before the HI Service became unreachable', async () => {
    const offline = DEMO.unreachable;
    const { data, message } = await precheckData(patientBody(api.g, offline, { ihi_number: wood.ihi_number, ...medicareOf(offline), phone: '0411111111' }));
    expect(data).toEqual({ outcome: 'hi_service_error', create_would_succeed: false, searched_path: 'medicare', failed_paths: ['ihi_number'] });
    expect(message).toContain('no record found using IHI number');
  });
});

