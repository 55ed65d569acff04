import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
const TUNING = new URL('./v8-tuning.ts', import.meta.url).href;

// Objects from one literal that all stay alive across young GCs: exactly what makes V8 decide
// to pretenure the literal. --trace-pretenuring-statistics prints a "pretenuring:" line for
// each such decision it weighs, and none when pretenuring is off. What the process printed
// before the workload (loading TypeScript, in this or tsx's thread) does not count.
const START = 'workload starts';
const WORKLOAD = `
const tune = process.argv[2] === 'tuned';
if (tune) (await import(${JSON.stringify(TUNING)})).tuneV8ForServing();
process.stdout.write(${JSON.stringify(START)} + '\\n');
const make = (i) => ({ i, pair: [i, i + 1] });
const kept = [];
for (let i = 0; i < 400_000; i++) kept.push(make(i));
process.stdout.write('kept ' + kept.length + '\\n');
`;

let dir: string;
let script: string;

function runWorkload(mode: 'tuned' | 'untuned'): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--trace-pretenuring-statistics', RUN_TS, script, mode], { timeout: 30_000 }, (error, stdout) => {
      if (error) return reject(error);
      const start = stdout.indexOf(START);
      return start < 0 ? reject(new Error(`the workload never started: ${stdout.slice(0, 300)}`)) : resolve(stdout.slice(start));
    });
  });
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'erx-v8-'));
  script = path.join(dir, 'workload.mjs');
  await fs.writeFile(script, WORKLOAD);
});

afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('tuneV8ForServing', () => {
  it('stops V8 from pretenuring a literal whose objects all survive young GCs', async () => {
    const untuned = await runWorkload('untuned');
    // The control: without the tuning this workload does get weighed for pretenuring.
    expect(untuned).toContain('kept 400000');
    expect(untuned).toMatch(/pretenuring: AllocationSite.*ratio\) \(\d+, \d+, 1\.0+\)/);

    const tuned = await runWorkload('tuned');
    expect(tuned).toContain('kept 400000');
    expect(tuned).not.toContain('pretenuring:');
  });
});
