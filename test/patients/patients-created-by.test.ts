// Who did it is the token's user. The path's user only says in whose list the call is made:
// a prescriber may create or delete a patient under a colleague's path, and the record names
// the prescriber, not the colleague.
import { describe, expect, it } from 'vitest';
import { givenUser, useTestApp, type TestClient } from '../given.ts';
import type { TestApp } from '../test-app.ts';
import { DEMO, medicareOf, patientBody, readPatientRow } from './patients-given.ts';

const { t, c: api } = useTestApp({});

describe("a patient's created-by and deleted-by", () => {
  it("record the token's user when the path names a colleague", async () => {
    const colleague = await givenUser(t, api.g.organizationId);
    const created = await api.create(patientBody(api.g, DEMO.activeVerified, medicareOf(DEMO.activeVerified)), colleague.user_id);
    expect(created.statusCode).toBe(201);
    const patientId = created.json().data.platform_patient_id as string;
    expect((await readPatientRow(t, patientId)).created_by_user_id).toBe(api.g.userId);

    const deleted = await t.app.inject({ method: 'DELETE', url: `${api.patientsUrl(colleague.user_id)}/${patientId}`, headers: api.prescriber });
    expect(deleted.statusCode).toBe(200);
    expect((await readPatientRow(t, patientId)).deleted_by_user_id).toBe(api.g.userId);
  });
});
