// erx_rtpm_checks_total counts each check by outcome and level (issue 41 item 4), scraped from
// the Prometheus registry the process exposes; the check's audit entry carries no text.
import { describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from '../../src/platform/metrics/prometheus-metrics.ts';
import { checkPatientRtpm, createRtpmSimulator } from '../../src/rtpm/index.ts';
import { parseExposition } from '../platform/metrics-scrape.ts';
import { useTestApp } from '../given.ts';
import { givenClinic } from '../prescriptions/prescriptions-given.ts';

const { t, c } = useTestApp({}, async (t) => ({ c: await givenClinic(t) }));

describe('erx_rtpm_checks_total', () => {
  it('counts checks by outcome and level', async () => {
    const metrics = createPrometheusMetrics();
    const patient = await t.deps.database.selectFrom('patients').selectAll().where('id', '=', c.patientId).executeTakeFirstOrThrow();
    const subject = { organizationId: c.g.organizationId, prescriberId: c.g.userId, patient, state: 'VIC' };
    const red = createRtpmSimulator({ providers: [], patients: [{ ihi_number: '8003608166690503', family_name: patient.family_name, given_name: patient.given_name, date_of_birth: String(patient.date_of_birth).slice(0, 10), sex: patient.sex as 'F', rtpm: { level: 'red', notifications: [{ severity: 'red', text: 'x', reference: 'r' }] } }] });
    const down = { check: async () => { throw new Error('connection refused'); } };
    await checkPatientRtpm({ ...t.features.rtpm, metrics, port: red }, subject);
    await checkPatientRtpm({ ...t.features.rtpm, metrics, port: red }, subject);
    await checkPatientRtpm({ ...t.features.rtpm, metrics, port: down }, subject);
    const samples = parseExposition((await metrics.scrape()).body).filter((sample) => sample.name === 'erx_rtpm_checks_total');
    expect(samples.map((sample) => [sample.labels.outcome, sample.labels.level, sample.value]).sort()).toEqual([
      ['checked', 'red', 2],
      ['unavailable', 'none', 1],
    ]);
  });
});
