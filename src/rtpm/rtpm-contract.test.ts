// The RTPM port's contract: what any adapter must answer, run against the simulator (the only
// adapter: the national exchange's interface is not public). A patient's fixture `rtpm` entry is
// what a check of that patient returns; no entry (or no such patient) is green with nothing.
import { describe, expect, it } from 'vitest';
import { parseHiFixtures } from '../hi-service/index.ts';
import { createRtpmSimulator, RTPM_LEVELS, type RtpmPort } from './index.ts';

const base = { ihi_number: '8003608166690503', ihi_status: 'ACTIVE', ihi_record_status: 'VERIFIED', sex: 'F' };
const fixtures = parseHiFixtures(
  {
    patients: [
      { ...base, family_name: 'Redflag', given_name: 'Rita', date_of_birth: '1970-03-01', rtpm: { level: 'red', notifications: [{ severity: 'red', text: 'Three prescribers of opioids in 60 days', reference: 'SS-RED-1' }, { severity: 'amber', text: 'High daily oral morphine equivalent', reference: 'SS-AMB-2' }] } },
      { ...base, ihi_number: '8003608833357361', family_name: 'Offline', given_name: 'Olive', date_of_birth: '1960-01-01', rtpm: 'unavailable' },
      { ...base, ihi_number: '8003608000228718', family_name: 'Quiet', given_name: 'Quinn', date_of_birth: '1990-12-31' },
    ],
  },
  'contract fixtures',
);

const patient = (familyName: string, givenName: string, dateOfBirth: string, sex = 'F') => ({ state: 'VIC', patient: { familyName, givenName, dateOfBirth, sex } });

function runContract(name: string, port: RtpmPort) {
  describe(`the RTPM port contract (${name})`, () => {
    it('answers a level and its notifications, each with severity, text and reference', async () => {
      const answer = await port.check(patient('REDFLAG', 'rita', '1970-03-01T00:00:00.000Z'));
      expect(answer).toEqual({
        outcome: 'checked', level: 'red',
        notifications: [
          { severity: 'red', text: 'Three prescribers of opioids in 60 days', reference: 'SS-RED-1' },
          { severity: 'amber', text: 'High daily oral morphine equivalent', reference: 'SS-AMB-2' },
        ],
      });
      if (answer.outcome === 'checked') for (const n of answer.notifications) expect(RTPM_LEVELS).toContain(n.severity);
    });
    it('answers unavailable when the system cannot be asked', async () => {
      expect(await port.check(patient('Offline', 'Olive', '1960-01-01'))).toEqual({ outcome: 'unavailable' });
    });
    it('answers green with no notifications for a patient without an entry, or unknown to it', async () => {
      expect(await port.check(patient('Quiet', 'Quinn', '1990-12-31'))).toEqual({ outcome: 'checked', level: 'green', notifications: [] });
      expect(await port.check(patient('Redflag', 'Rita', '1970-03-02'))).toEqual({ outcome: 'checked', level: 'green', notifications: [] });
      expect(await port.check(patient('Redflag', 'Rita', '1970-03-01', 'M'))).toEqual({ outcome: 'checked', level: 'green', notifications: [] });
    });
  });
}

runContract('simulator', createRtpmSimulator(fixtures));

describe('the fixture file rtpm entry', () => {
  it.each([
    [{ level: 'purple', notifications: [] }],
    [{ level: 'red', notifications: [{ severity: 'red', text: 'x' }] }],
    ['down'],
  ])('refuses a malformed entry %j', (rtpm) => {
    expect(() => parseHiFixtures({ patients: [{ ...base, family_name: 'A', given_name: 'B', date_of_birth: '1970-01-01', rtpm }] }, 'bad')).toThrow();
  });
});
