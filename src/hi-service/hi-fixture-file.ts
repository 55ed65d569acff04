// The HI sandbox fixture file: a public, documented JSON format (DESIGN.md, "HI sandbox
// fixture file") holding the test identities the sandbox simulator answers from.
// Loading checks the shape with TypeBox (hi-fixture-schema.ts), then the identifier formats the precheck itself
// enforces, so a record that no valid request could ever reach is reported at start-up.

import { readFileSync } from 'node:fs';
import type { Static, TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
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
import { HiFixtureFile, type HiFixtures, type HiPatientFixture, type HiProviderFixture } from './hi-fixture-schema.ts';
import { describeMissingSaccCode, saccCodeOf } from './sacc-countries.ts';

export * from './hi-fixture-schema.ts';

type FieldCheck<Fixture> = {
  field: keyof Fixture & string;
  isValid: (value: string) => boolean;
  problem: string;
};

function keepDigits(value: string): string {
  return value.replace(/\D/g, '');
}

const PATIENT_FIELD_CHECKS: FieldCheck<HiPatientFixture>[] = [
  {
    field: 'ihi_number',
    isValid: (v) => isValidIhi(keepDigits(v)),
    problem: 'is not a valid IHI (16 digits, prefix 800360, Luhn check digit)',
  },
  {
    field: 'date_of_birth',
    isValid: isCalendarDate,
    problem: 'is not a calendar date',
  },
  {
    field: 'medicare_card_number',
    isValid: (v) => isValidMedicareCardNumber(keepDigits(v)),
    problem: 'is not a valid Medicare card number (10 digits, check digit)',
  },
  {
    field: 'medicare_irn',
    isValid: isValidMedicareIrn,
    problem: 'must be one digit from 1 to 9',
  },
  {
    field: 'dva_file_number',
    isValid: isValidDvaFileNumber,
    problem: 'is not a valid DVA file number',
  },
  {
    field: 'phone',
    isValid: isValidAustralianMobile,
    problem: 'is not an Australian mobile number (04xxxxxxxx, 05xxxxxxxx, +61 or 61 prefix)',
  },
  {
    field: 'email',
    isValid: isValidEmail,
    problem: 'is not a valid e-mail address',
  },
];

const PROVIDER_FIELD_CHECKS: FieldCheck<HiProviderFixture>[] = [
  {
    field: 'hpii_number',
    isValid: (v) => isValidHpii(keepDigits(v)),
    problem: 'is not a valid HPI-I (16 digits, prefix 800361, Luhn check digit)',
  },
  {
    field: 'date_of_birth',
    isValid: isCalendarDate,
    problem: 'is not a calendar date',
  },
];

/** `/patients/2/date_of_birth` -> `patients[2].date_of_birth`. */
function formatFieldPath(pointer: string): string {
  const segments = pointer.split('/').slice(1);
  const path = segments
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`))
    .join('');
  return path.startsWith('.') ? path.slice(1) : path || '(top level)';
}

function listLiterals(schema: TSchema): string[] | undefined {
  const options: unknown = schema['anyOf'];
  if (!Array.isArray(options)) return undefined;
  const literals = options.map((option: TSchema) => option['const']);
  return literals.every((literal) => typeof literal === 'string') ? literals : undefined;
}

function describeSchemaError(error: ValueError): string {
  if (error.type === ValueErrorType.ObjectRequiredProperty) return 'is required';
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    return 'is not a field of this format';
  }
  const literals = listLiterals(error.schema);
  if (literals !== undefined) return `must be one of ${literals.join(', ')}`;
  return `is invalid: ${error.message}`;
}

function findFieldProblem<Fixture extends object>(
  records: Fixture[],
  checks: FieldCheck<Fixture>[],
  listName: string,
): string | undefined {
  for (const [index, record] of records.entries()) {
    for (const check of checks) {
      const value: unknown = record[check.field];
      if (typeof value === 'string' && !check.isValid(value)) {
        return `${listName}[${index}].${check.field} ${check.problem}`;
      }
    }
  }
  return undefined;
}

function findMedicareWithoutIrn(patients: HiPatientFixture[]): string | undefined {
  const index = patients.findIndex(
    (patient) => patient.medicare_card_number !== undefined && patient.medicare_irn === undefined,
  );
  if (index === -1) return undefined;
  return `patients[${index}].medicare_irn is required with medicare_card_number`;
}

function findCountryWithoutSaccCode(patients: HiPatientFixture[]): string | undefined {
  for (const [index, patient] of patients.entries()) {
    const country = patient.international_address?.country;
    if (country === undefined || saccCodeOf(country) !== undefined) continue;
    return `patients[${index}].international_address.country has no HI Service country code: ${describeMissingSaccCode(country)}`;
  }
  return undefined;
}

/** fault_code and fault_severity describe a rejection, so they come only with `fault: rejected`. */
function findStrayFaultDetail(records: Array<HiPatientFixture | HiProviderFixture>, listName: string): string | undefined {
  for (const [index, record] of records.entries()) {
    if (record.fault === 'rejected') continue;
    const field = (['fault_code', 'fault_severity'] as const).find((name) => record[name] !== undefined);
    if (field !== undefined) return `${listName}[${index}].${field} is allowed only with "fault": "rejected"`;
  }
  return undefined;
}

function findFixtureProblem(value: unknown): string | undefined {
  const schemaError = Value.Errors(HiFixtureFile, value).First();
  if (schemaError !== undefined) {
    return `${formatFieldPath(schemaError.path)} ${describeSchemaError(schemaError)}`;
  }
  const fixtures = toHiFixtures(value as Static<typeof HiFixtureFile>);
  return (
    findFieldProblem(fixtures.patients, PATIENT_FIELD_CHECKS, 'patients') ??
    findMedicareWithoutIrn(fixtures.patients) ??
    findCountryWithoutSaccCode(fixtures.patients) ??
    findStrayFaultDetail(fixtures.patients, 'patients') ??
    findFieldProblem(fixtures.providers, PROVIDER_FIELD_CHECKS, 'providers') ??
    findStrayFaultDetail(fixtures.providers, 'providers')
  );
}

function toHiFixtures(file: Static<typeof HiFixtureFile>): HiFixtures {
  return { patients: file.patients ?? [], providers: file.providers ?? [] };
}

/** Checks parsed JSON against the format; `source` names it in the error message. */
export function parseHiFixtures(value: unknown, source: string): HiFixtures {
  const problem = findFixtureProblem(value);
  if (problem !== undefined) throw new Error(`HI fixture file ${source}: ${problem}`);
  return toHiFixtures(value as Static<typeof HiFixtureFile>);
}

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`HI fixture file ${path}: cannot be read (${(error as Error).message})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`HI fixture file ${path}: is not valid JSON (${(error as Error).message})`);
  }
}

export function loadHiFixtureFile(path: string): HiFixtures {
  return parseHiFixtures(readJsonFile(path), path);
}

/** Concatenates fixture sets; a search meets the records of earlier sets first. */
export function mergeHiFixtures(...sets: HiFixtures[]): HiFixtures {
  return {
    patients: sets.flatMap((set) => set.patients),
    providers: sets.flatMap((set) => set.providers),
  };
}
