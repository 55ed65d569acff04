// A create waits for its submission whoever claims it: a runner in the same process (woken by the
// create's commit) may claim the job before the create's own claim, and the create must still
// answer Active with the PDS's SCID once the runner settles it, not Pending at once.
import { describe, expect, it } from 'vitest';
import { runDueSubmissions } from '../../src/prescriptions/pds-submission.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, prescriptionsClient } from '../prescriptions/prescriptions-given.ts';

describe('a create racing the submission runner', () => {
  const { t } = useTestApp({ env: { ERX_PDS_WAIT_MS: '5000', ERX_PDS_TIMEOUT_MS: '1000' } });

  it('answers Active with the SCID for every one of 16 concurrent creates while a runner claims what is due', async () => {
    const c = await givenClinic(t);
    let creating = true;
    let runnerClaims = 0;
    const runner = (async () => {
      while (creating) {
        await runDueSubmissions(t.features.prescriptions);
        runnerClaims += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 16 }, () => prescriptionsClient(t, c).prescribe()));
    creating = false;
    await runner;
    expect(runnerClaims).toBeGreaterThan(0);
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(16).fill(201));
    expect(answers.map((answer) => answer.json().data.status)).toEqual(Array(16).fill('Active'));
    expect(answers.every((answer) => typeof answer.json().data.scid === 'string')).toBe(true);
  });
});
