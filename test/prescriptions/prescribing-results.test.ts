// The portal's prescribing calls return every refusal as a result it reads (PrescribingResult):
// field errors (the API's 422) or `refused` with the reason (the API's 409), never an error it
// must catch by code; the API's calls still answer 409 for the same refusal.
import { describe, expect, it } from 'vitest';
import { DEMO_HPIO } from '../../src/onboarding/index.ts';
import { ApiError } from '../../src/platform/http/api-error.ts';
import { changePrescription, changePrescriptionOrRefuse, prescribeOrRefuse } from '../../src/prescriptions/index.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPrescription, prescribeBody, prescriptionsClient, storedPrescription } from './prescriptions-given.ts';

const { t, c } = useTestApp({}, async (t) => ({ c: await givenClinic(t) }));
const caller = () => ({ organizationId: c.g.organizationId, organizationHpio: DEMO_HPIO, userId: c.g.userId });
const ids = (scid: string) => ({ userId: c.g.userId, patientId: c.patientId, scid });

describe('prescribing results', () => {
  it('a change the lifecycle refuses comes back as refused, naming the status; the API variant throws the 409', async () => {
    const { scid } = await givenPrescription(t, c);
    expect((await prescriptionsClient(t, c).change('cease', scid)).statusCode).toBe(200);
    const read = await changePrescriptionOrRefuse(t.features.prescriptions, caller(), ids(scid), 'cancel', { value: {}, issues: [] });
    const why = `Prescription ${scid} is Ceased; only an Active prescription can be cancelled`;
    expect(read).toEqual({ ok: false, refused: why });
    expect((await storedPrescription(t, scid))?.status).toBe('Ceased');
    const thrown = await changePrescription(t.features.prescriptions, caller(), ids(scid), 'cancel', { value: {}, issues: [] }).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ code: 'CONFLICT', detail: why });
  });

  it('a refused body comes back as its field errors, not as refused', async () => {
    const read = await prescribeOrRefuse(t.features.prescriptions, caller(), { userId: c.g.userId, patientId: c.patientId }, { value: prescribeBody({ quantity: 0 }), issues: [] });
    expect(read.ok).toBe(false);
    expect(read).not.toHaveProperty('refused');
    expect(read).toMatchObject({ errors: [expect.objectContaining({ field: 'quantity' })] });
  });

  it('anything but a refusal (an unknown patient: 404) is still thrown', async () => {
    const missing = prescribeOrRefuse(t.features.prescriptions, caller(), { userId: c.g.userId, patientId: '00000000-0000-4000-8000-000000000000' }, { value: prescribeBody(), issues: [] });
    await expect(missing).rejects.toMatchObject({ code: 'PATIENT_NOT_FOUND' });
  });
});
