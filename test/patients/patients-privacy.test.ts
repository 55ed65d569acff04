// National identifiers: sealed at rest, absent from every log line, never in a precheck answer.
import { describe, expect, it } from 'vitest';
import { decryptSecret } from '../../src/platform/secrets.ts';
import { DEMO, givenImportedPatient, patientBody, readPatientRow } from './patients-given.ts';
import { useTestApp } from '../given.ts';

const { t, c: api } = useTestApp({});

const wood = DEMO.activeVerified;
const fullIdentifiers = (person: typeof wood) => ({
  ihi_number: person.ihi_number,
  medicare_card_number: person.medicare_card_number,
  medicare_irn: person.medicare_irn,
  dva_file_number: person.dva_file_number,
  phone: person.phone,
  email: person.email,
  australian_street_address: person.australian_street_address,
});

describe('at rest', () => {
  it('stores IHI, Medicare and DVA numbers only as ciphertext that decrypts to them', async () => {
    const response = await api.create(patientBody(api.g, wood, fullIdentifiers(wood)));
    const row = await readPatientRow(t, response.json().data.platform_patient_id);
    const text = JSON.stringify(row);
    for (const value of [wood.ihi_number, wood.medicare_card_number, wood.dva_file_number]) expect(text).not.toContain(value);
    expect(decryptSecret(row.ihi_number_encrypted!, t.deps.secretKey)).toBe(wood.ihi_number);
    expect(decryptSecret(row.medicare_card_number_encrypted!, t.deps.secretKey)).toBe(wood.medicare_card_number);
    expect(decryptSecret(row.dva_file_number_encrypted!, t.deps.secretKey)).toBe(wood.dva_file_number);
  });

  it('seals the same number differently each time, so equal ciphertexts reveal nothing', async () => {
    const first = await api.create(patientBody(api.g, wood, { ihi_number: wood.ihi_number }));
    const second = await api.create(patientBody(api.g, wood, { ihi_number: wood.ihi_number }));
    const [a, b] = await Promise.all([first, second].map((r) => readPatientRow(t, r.json().data.platform_patient_id)));
    expect(a!.ihi_number_encrypted).not.toBe(b!.ihi_number_encrypted);
  });
});

describe('logs', () => {
  it('contain none of the identifiers sent to any patient route, whatever the outcome', async () => {
    const sent = new Set<string>();
    const remember = (body: Record<string, unknown>) => {
      for (const key of ['ihi_number', 'medicare_card_number', 'dva_file_number', 'phone', 'email']) {
        if (typeof body[key] === 'string') sent.add(body[key] as string);
      }
      return body;
    };
    const linesBefore = t.logs.length;
    const people = [wood, DEMO.activeProvisional, DEMO.unreachable, DEMO.deceasedVerified];
    for (const person of people) {
      const body = remember(patientBody(api.g, person, { ihi_number: person.ihi_number, medicare_card_number: person.medicare_card_number, medicare_irn: person.medicare_irn }));
      await api.precheck(body);
      await api.create(body);
    }
    const created = await api.create(remember(patientBody(api.g, wood, fullIdentifiers(wood))));
    const id = created.json().data.platform_patient_id;
    await api.update(id, remember({ given_name: 'Jess', medicare_card_number: '2999000121', dva_file_number: 'N 908030' }));
    await api.update(id, remember({ ihi_number: '8003609900000017', phone: '0298765432', email: 'bad@' }));
    await api.precheck(remember({ ...patientBody(api.g, wood), ihi_number: '8003601240022578', medicare_card_number: '2950141871', phone: '0491570110' }));
    await givenImportedPatient(t, api.g, 'DUP-PRIVACY');
    await givenImportedPatient(t, api.g, 'DUP-PRIVACY');
    await api.create(remember({ ...patientBody(api.g, wood, { ihi_number: wood.ihi_number }), partner_patient_id: 'DUP-PRIVACY' }));

    const lines = t.logs.slice(linesBefore);
    expect(lines.filter((line) => line.includes('request completed')).length).toBeGreaterThanOrEqual(12);
    expect(sent.size).toBeGreaterThanOrEqual(12);
    const text = lines.join('\n');
    for (const value of sent) expect(text, value).not.toContain(value);
  });
});

describe('precheck answers', () => {
  it('never carry the IHI, in data or message, for any demo identity', async () => {
    for (const person of Object.values(DEMO)) {
      const response = await api.precheck(patientBody(api.g, person, { ihi_number: person.ihi_number }));
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toContain(person.ihi_number);
    }
  });
});
