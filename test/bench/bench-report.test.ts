// The bench's report (bench/bench-report.ts): each row is compared with the baseline measured
// beside it, not with the run-wide baseline figure, and the table shows both.
import { describe, expect, it } from 'vitest';
import type { BenchEndpoint } from '../../bench/bench-endpoints.ts';
import { compareToBaselines, formatReportTable, missedTargets } from '../../bench/bench-report.ts';
import { fakeMeasurement } from './fake-measurement.ts';

const measurement = (name: string, requestsPerSecond: number) => fakeMeasurement(name, requestsPerSecond);

const endpoint = (name: string, minBaselineRatio?: number): BenchEndpoint => ({
  name,
  method: 'POST',
  path: `/${name}`,
  headers: {},
  baseline: 'POST',
  ...(minBaselineRatio === undefined ? {} : { minBaselineRatio }),
});

describe('compareToBaselines', () => {
  // Run-wide, the POST baseline averaged 20,000 req/s; beside each row it ran at 10,000.
  const baselines = { GET: measurement('baseline GET', 30_000), POST: measurement('baseline POST', 20_000) };
  const report = compareToBaselines(baselines, [
    { endpoint: endpoint('beside-slow', 0.4), measurement: measurement('beside-slow', 4_500), baseline: measurement('baseline POST', 10_000) },
    { endpoint: endpoint('beside-fast', 0.4), measurement: measurement('beside-fast', 4_500), baseline: measurement('baseline POST', 15_000) },
    { endpoint: endpoint('no-target'), measurement: measurement('no-target', 100), baseline: measurement('baseline POST', 10_000) },
  ]);

  it('divides by the baseline measured beside the row', () => {
    expect(report.endpoints.map((r) => [r.name, r.baselineRequestsPerSecond, r.baselineRatio])).toEqual([
      ['beside-slow', 10_000, 0.45],
      ['beside-fast', 15_000, 0.3],
      ['no-target', 10_000, 0.01],
    ]);
  });

  it('checks each target against that ratio', () => {
    expect(report.endpoints.map((r) => r.target?.pass)).toEqual([true, false, undefined]);
    expect(missedTargets(report).map((r) => r.name)).toEqual(['beside-fast']);
  });

  it('prints the run-wide baselines, and for each row its ratio and its own baseline req/s', () => {
    const lines = formatReportTable(report).split('\n');
    expect(lines[0]).toMatch(/vs baseline\s+baseline req\/s\s+by CPU\s+target/);
    expect(lines.find((line) => line.startsWith('baseline POST'))).toMatch(/\s20000\s/);
    expect(lines.find((line) => line.startsWith('beside-slow'))).toMatch(/45\.0% of POST\s+10000\s+>= 40\.0% PASS$/);
    expect(lines.find((line) => line.startsWith('beside-fast'))).toMatch(/30\.0% of POST\s+15000\s+>= 40\.0% FAIL$/);
    expect(lines.find((line) => line.startsWith('no-target'))).toMatch(/1\.0% of POST\s+10000$/);
  });
});

describe('CPU per request', () => {
  // The row costs 40 µs of its server's CPU a request; its baseline beside it 10 µs (run-wide: 12).
  const baselines = { GET: measurement('baseline GET', 30_000), POST: fakeMeasurement('baseline POST', 20_000, { cpuMicrosPerRequest: 12 }) };
  const report = compareToBaselines(baselines, [
    { endpoint: endpoint('costly'), measurement: fakeMeasurement('costly', 4_000, { cpuMicrosPerRequest: 40 }), baseline: fakeMeasurement('baseline POST', 10_000, { cpuMicrosPerRequest: 10 }) },
    { endpoint: endpoint('unread'), measurement: measurement('unread', 4_000), baseline: fakeMeasurement('baseline POST', 10_000, { cpuMicrosPerRequest: 10 }) },
  ]);

  it("is reported beside the baseline's, and their ratio, when both processes were read", () => {
    expect(report.endpoints.map((r) => [r.name, r.cpuMicrosPerRequest, r.baselineCpuMicrosPerRequest, r.cpuRatio])).toEqual([
      ['costly', 40, 10, 0.25],
      ['unread', undefined, undefined, undefined],
    ]);
  });

  it('is a column of the table, for the baselines and the rows', () => {
    const lines = formatReportTable(report).split('\n');
    expect(lines[0]).toMatch(/p99 ms\s+CPU µs\s+body/);
    expect(lines.find((line) => line.startsWith('baseline POST'))).toMatch(/\s12\.0\s/);
    expect(lines.find((line) => line.startsWith('costly'))).toMatch(/\s40\.0\s.*40\.0% of POST\s+10000\s+25\.0%$/);
  });
});
