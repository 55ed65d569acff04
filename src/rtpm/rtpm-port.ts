// The real-time prescription monitoring (RTPM) port: check a patient, for a prescriber, before a
// monitored medicine is prescribed. The national RTPM exchange's interface is not public, so the
// simulator (answering from the HI fixture file's patients, their `rtpm` entry) is the only
// adapter; an adapter for a state's system would implement this port and pass the same contract
// suite (rtpm-contract.test.ts). ERX_RTPM=none has no port: the prescriber checks the state's
// system themself and attests.
import type { HiFixtures } from '../hi-service/index.ts';

export const RTPM_LEVELS = ['green', 'amber', 'red'] as const;
export type RtpmLevel = (typeof RTPM_LEVELS)[number];

export interface RtpmNotification {
  severity: RtpmLevel;
  text: string;
  /** The system's reference of the notification (shown; the prescriber may quote it). */
  reference: string;
}

/** Who is checked: the patient's demographics (and IHI when known), in the practice's state. */
export interface RtpmCheckRequest {
  state: string;
  patient: { familyName: string; givenName: string; dateOfBirth: string; sex: string };
}

export type RtpmAnswer =
  | { outcome: 'checked'; level: RtpmLevel; notifications: RtpmNotification[] }
  /** The system could not be asked or did not answer: the prescriber may go on only after saying why. */
  | { outcome: 'unavailable' };

export interface RtpmPort {
  check(request: RtpmCheckRequest): Promise<RtpmAnswer>;
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The simulator: the fixture patient with the same family name, given name, date of birth and
 * sex (names in any case) answers its `rtpm` entry; a patient without one, or not in the file,
 * is green with no notifications.
 */
export function createRtpmSimulator(fixtures: HiFixtures): RtpmPort {
  return {
    async check({ patient }) {
      const record = fixtures.patients.find(
        (p) => same(p.family_name, patient.familyName) && same(p.given_name, patient.givenName) && p.date_of_birth === patient.dateOfBirth.slice(0, 10) && same(p.sex, patient.sex),
      );
      const entry = record?.rtpm;
      if (entry === undefined) return { outcome: 'checked', level: 'green', notifications: [] };
      if (entry === 'unavailable') return { outcome: 'unavailable' };
      return { outcome: 'checked', level: entry.level, notifications: entry.notifications.map((n) => ({ ...n })) };
    },
  };
}
