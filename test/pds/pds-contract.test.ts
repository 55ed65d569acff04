// The PDS contract (pds-contract.ts) against the sandbox simulator, its faults from fixture
// patients, and against the recording double, which injects every failure of every call.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPdsSimulator } from '../../src/pds/pds-simulator.ts';
import { withPdsTimeout } from '../../src/pds/pds-timeout.ts';
import type { PdsFaultPatient } from '../../src/pds/pds-simulator-faults.ts';
import { createTestDatabase, type TestDatabase } from '../test-app.ts';
import { describePdsContract, submissionFor } from './pds-contract.ts';
import { createRecordingPds } from './recording-pds.ts';

const REFUSAL = { code: 'PRESCRIBER_NOT_REGISTERED', message: 'The prescriber is not registered with this PDS' };
const FAULT_PATIENTS: PdsFaultPatient[] = [
  { ihi_number: '8003608000000001', given_name: 'Rita', family_name: 'Refused', date_of_birth: '1970-01-01', pds: { refuse: REFUSAL } },
  { ihi_number: '8003608000000002', given_name: 'Otto', family_name: 'Outage', date_of_birth: '1970-01-02', pds: 'unreachable' },
  { ihi_number: '8003608000000003', given_name: 'Tim', family_name: 'Timeout', date_of_birth: '1970-01-03', pds: 'timeout' },
];

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

const simulator = () => createPdsSimulator({ db: database.handle, patients: FAULT_PATIENTS, now: () => new Date() });

describePdsContract('sandbox simulator', async () => {
  const sandbox = simulator();
  return {
    port: withPdsTimeout(sandbox, 150),
    sandbox,
    failingSubmission(failure) {
      const patient = FAULT_PATIENTS[['refused', 'unreachable', 'timeout'].indexOf(failure)]!;
      return { submission: submissionFor({ ihi: patient.ihi_number }), refusal: failure === 'refused' ? REFUSAL : undefined };
    },
  };
});

describePdsContract('recording double', async () => {
  const double = createRecordingPds(simulator(), 150);
  const refusalOf = (failure: string) => (failure === 'refused' ? REFUSAL : undefined);
  const inject = (failure: string) => (failure === 'refused' ? { refuse: REFUSAL } : (failure as 'unreachable' | 'timeout'));
  return {
    port: double,
    sandbox: double,
    failingSubmission(failure) {
      double.failNext('submit', inject(failure));
      return { submission: submissionFor(), refusal: refusalOf(failure) };
    },
    failNextChange(method, failure) {
      double.failNext(method, inject(failure));
      return refusalOf(failure);
    },
  };
});

it('the simulator finds a fixture patient without an IHI by name and date of birth', async () => {
  const port = withPdsTimeout(simulator(), 150);
  const answer = await port.submit(submissionFor({ name: 'Mrs Rita Refused', dateOfBirth: '1970-01-01' }));
  expect(answer).toEqual({ ok: false, outcome: 'refused', ...REFUSAL });
  expect((await port.submit(submissionFor({ name: 'Mrs Rita Refused', dateOfBirth: '1970-01-09' }))).ok).toBe(true);
});

it('a throwing adapter is unreachable, never a refusal', async () => {
  const double = createRecordingPds(simulator(), 150);
  double.failNext('cease', 'throw');
  expect(await double.cease('ZZZZZZZZZZZZZZZZZ0')).toMatchObject({ ok: false, outcome: 'unreachable', reason: 'connection' });
  expect(double.calls).toEqual([{ method: 'cease', argument: 'ZZZZZZZZZZZZZZZZZ0' }]);
});
