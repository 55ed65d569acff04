// The setup step behind the prescription rows: two patients created through the API (one
// whose list is read, one the create row prescribes for), and LISTED_PRESCRIPTIONS
// prescriptions for the first through the sandbox test helper, a few in flight at a time. Only
// the API writes: the rows then measure what a partner's own data would give.
import {
  BEARER,
  BENCH_PRESCRIPTION,
  JESSICA_WOOD,
  JSON_CONTENT,
  LISTED_PRESCRIPTIONS,
  PATIENTS_PATH,
  TEST_HELPERS_PATIENTS_PATH,
  type BenchEndpoint,
} from './bench-endpoints.ts';
import type { BenchVariables } from './bench-variables.ts';
import { resolveRequest, sendForData } from './bench-requests.ts';

/** Requests in flight at once: enough to keep the server busy, few enough to stay polite. */
const IN_FLIGHT = 16;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function createPatient(baseUrl: string, variables: BenchVariables, partnerPatientId: string): Promise<string> {
  const request: BenchEndpoint = {
    name: `setup: create patient ${partnerPatientId}`,
    method: 'POST',
    path: PATIENTS_PATH,
    headers: { ...BEARER, ...JSON_CONTENT },
    body: { partner_patient_id: partnerPatientId, ...JESSICA_WOOD },
    baseline: 'POST',
  };
  const data = (await sendForData(baseUrl, resolveRequest(request, variables), 201)) as { platform_patient_id?: unknown };
  if (typeof data.platform_patient_id !== 'string') throw new Error(`${request.name}: no platform_patient_id in ${JSON.stringify(data).slice(0, 300)}`);
  return data.platform_patient_id;
}

/** Prescribes `count` times for the patient, IN_FLIGHT at a time; each must answer 201 Active. */
async function prescribeMany(baseUrl: string, variables: BenchVariables, patientId: string, count: number): Promise<void> {
  const request = resolveRequest(
    {
      name: 'setup: prescribe for the listed patient',
      method: 'POST',
      path: `${TEST_HELPERS_PATIENTS_PATH}/${patientId}/prescriptions`,
      headers: { ...BEARER, ...JSON_CONTENT },
      body: BENCH_PRESCRIPTION,
      baseline: 'POST',
    },
    variables,
  );
  let started = 0;
  const worker = async () => {
    while (started < count) {
      started += 1;
      const data = (await sendForData(baseUrl, request, 201)) as { status?: unknown };
      if (data.status !== 'Active') throw new Error(`${request.name}: unexpected answer ${JSON.stringify(data).slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** {rx_list_patient_id} (with LISTED_PRESCRIPTIONS prescriptions) and {rx_patient_id} (none). */
export async function createPrescriptionsToList(baseUrl: string, variables: BenchVariables): Promise<BenchVariables> {
  const listed = await createPatient(baseUrl, variables, 'bench-rx-listed');
  const prescribed = await createPatient(baseUrl, variables, 'bench-rx-created');
  const startedAt = performance.now();
  log(`  setup: prescribing ${LISTED_PRESCRIPTIONS} times through the test helper, ${IN_FLIGHT} at a time`);
  await prescribeMany(baseUrl, variables, listed, LISTED_PRESCRIPTIONS);
  log(`  setup: ${LISTED_PRESCRIPTIONS} prescriptions created (${((performance.now() - startedAt) / 1000).toFixed(1)} s)`);
  return { rx_list_patient_id: listed, rx_patient_id: prescribed };
}
