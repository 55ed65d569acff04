import { describe, expect, it } from 'vitest';
import {
  isCalendarDate,
  isValidAustralianMobile,
  isValidDvaFileNumber,
  isValidEmail,
  isValidHpii,
  isValidIhi,
  isValidMedicareCardNumber,
  isValidMedicareIrn,
} from '../identifiers/index.ts';
import { HI_DEMO_FIXTURES, HI_DEMO_PATIENTS } from './hi-demo-fixtures.ts';
import { parseHiFixtures } from './hi-fixture-file.ts';
import { IHI_RECORD_STATUSES, IHI_STATUSES } from './hi-service-port.ts';

const { patients, providers } = HI_DEMO_FIXTURES;
const fullName = (record: { given_name: string; family_name: string }) =>
  `${record.given_name} ${record.family_name}`;

describe('HI demo fixtures', () => {
  it.each(patients.map((p) => [fullName(p), p.ihi_number]))(
    '%s has a valid IHI (%s)',
    (_name, ihi) => {
      expect(isValidIhi(ihi)).toBe(true);
    },
  );

  it.each(providers.map((p) => [fullName(p), p.hpii_number]))(
    '%s has a valid HPI-I (%s)',
    (_name, hpii) => {
      expect(isValidHpii(hpii)).toBe(true);
    },
  );

  it.each(
    patients
      .filter((p) => p.medicare_card_number !== undefined)
      .map((p) => [fullName(p), p.medicare_card_number ?? '', p.medicare_irn ?? '']),
  )('%s has a valid Medicare card number (%s) and IRN (%s)', (_name, card, irn) => {
    expect(isValidMedicareCardNumber(card)).toBe(true);
    expect(isValidMedicareIrn(irn)).toBe(true);
  });

  it('holds only well-formed DVA numbers, mobiles, e-mails and dates of birth', () => {
    for (const patient of patients) {
      if (patient.dva_file_number) expect(isValidDvaFileNumber(patient.dva_file_number)).toBe(true);
      if (patient.phone) expect(isValidAustralianMobile(patient.phone)).toBe(true);
      if (patient.email) expect(isValidEmail(patient.email)).toBe(true);
    }
    for (const person of [...patients, ...providers]) {
      expect(isCalendarDate(person.date_of_birth)).toBe(true);
    }
  });

  it('passes the fixture file format, so it can serve as an example file', () => {
    const copy: unknown = JSON.parse(JSON.stringify(HI_DEMO_FIXTURES));
    expect(parseHiFixtures(copy, 'demo')).toStrictEqual(HI_DEMO_FIXTURES);
  });

  it('gives every record a distinct name and number', () => {
    const people = [...patients, ...providers];
    expect(new Set(people.map(fullName)).size).toBe(people.length);
    expect(new Set(patients.map((p) => p.ihi_number)).size).toBe(patients.length);
    expect(new Set(providers.map((p) => p.hpii_number)).size).toBe(providers.length);
    const cards = patients.flatMap((p) => p.medicare_card_number ?? []);
    expect(new Set(cards).size).toBe(cards.length);
  });

  it('covers every status except UNKNOWN, and a record without status', () => {
    const statuses = new Set(patients.map((p) => p.ihi_status));
    const recordStatuses = new Set(patients.map((p) => p.ihi_record_status));
    for (const status of IHI_STATUSES.filter((s) => s !== 'UNKNOWN')) {
      expect(statuses).toContain(status);
    }
    for (const status of IHI_RECORD_STATUSES.filter((s) => s !== 'UNKNOWN')) {
      expect(recordStatuses).toContain(status);
    }
    expect(HI_DEMO_PATIENTS.withoutStatus).not.toHaveProperty('ihi_status');
    expect(HI_DEMO_PATIENTS.withoutStatus).not.toHaveProperty('ihi_record_status');
  });

  it('keeps each single-path patient free of any other search identifier', () => {
    const searchFields = [
      'medicare_card_number',
      'dva_file_number',
      'phone',
      'email',
      'australian_street_address',
      'international_address',
    ] as const;
    const singlePath = [
      HI_DEMO_PATIENTS.dvaOnly,
      HI_DEMO_PATIENTS.mobileOnly,
      HI_DEMO_PATIENTS.emailOnly,
      HI_DEMO_PATIENTS.streetAddressOnly,
      HI_DEMO_PATIENTS.internationalAddressOnly,
    ];
    for (const record of singlePath) {
      const held = searchFields.filter((field) => field in record);
      expect(held, fullName(record)).toHaveLength(1);
    }
  });
});
