// The sandbox PDS's faults, from the HI fixture file's patients (as the HI simulator's are): a
// patient's `pds` entry makes every submission for that patient be refused with its code and
// message, never answered (a timeout), or unreachable. A submission is the patient's when its
// IHI is the patient's, or, without an IHI, when its name holds the given and family names and
// the date of birth is the same.
import type { HiPatientFixture } from '../hi-service/index.ts';
import type { PdsSubmission } from './pds-port.ts';

export type PdsFault = NonNullable<HiPatientFixture['pds']>;
export type PdsFaultPatient = Pick<HiPatientFixture, 'ihi_number' | 'given_name' | 'family_name' | 'date_of_birth' | 'pds'>;

const digits = (text: string) => text.replace(/\D/g, '');
const words = (text: string) => text.toLowerCase().split(/\s+/).filter(Boolean);

function isPatientOf(submission: PdsSubmission, patient: PdsFaultPatient): boolean {
  const { ihi, name, dateOfBirth } = submission.patient;
  if (ihi !== null) return digits(ihi) === digits(patient.ihi_number);
  const named = words(name);
  const wanted = [...words(patient.given_name), ...words(patient.family_name)];
  return dateOfBirth.slice(0, 10) === patient.date_of_birth && wanted.every((word) => named.includes(word));
}

/** The fault of the submission's patient, if any fixture patient with a `pds` entry is theirs. */
export function findPdsFault(patients: readonly PdsFaultPatient[], submission: PdsSubmission): PdsFault | undefined {
  return patients.find((patient) => patient.pds !== undefined && isPatientOf(submission, patient))?.pds;
}
