// The compare mode's report (bench/compare-report.ts): per row, this checkout's server and the
// ref's as measured in the same alternating slices, and current ÷ ref.
import { describe, expect, it } from 'vitest';
import { compareRow, formatCompareTable } from '../../bench/compare-report.ts';
import { fakeMeasurement } from './fake-measurement.ts';

const measurement = (name: string, requestsPerSecond: number, latencyP99Ms: number) => fakeMeasurement(name, requestsPerSecond, { method: 'GET', latencyP99Ms });

describe('compareRow', () => {
  it.each([
    [3_000, 2_000, 1.5],
    [2_000, 3_000, 0.667],
    [1_234.5, 1_234.5, 1],
    [100, 700, 0.143],
  ])('current %d req/s over ref %d req/s is %d', (current, ref, ratio) => {
    expect(compareRow(measurement('row', current, 3), measurement('row', ref, 3)).ratio).toBe(ratio);
  });

  it('keeps both measurements and the row under the current name and path', () => {
    const row = compareRow(measurement('token', 900, 12), measurement('token', 1_000, 9));
    expect(row).toMatchObject({ name: 'token', method: 'GET', path: '/token', ratio: 0.9 });
    expect([row.current.latencyP99Ms, row.ref.latencyP99Ms]).toEqual([12, 9]);
  });
});

describe('formatCompareTable', () => {
  const report = {
    rows: [compareRow(measurement('token', 1_500.4, 14), measurement('token', 1_000, 0)), compareRow(measurement('validate', 800, 7), measurement('validate', 1_000, 6))],
    skipped: [{ name: 'list users (10,000)', reason: 'its setup did not run there' }],
  };
  const lines = formatCompareTable(report, '6ff4872').split('\n');

  it('heads the ref columns with the ref', () => {
    expect(lines[0]!.split(/\s{2,}/)).toEqual(['endpoint', 'method', 'path', 'current req/s', 'current p99 ms', '6ff4872 req/s', '6ff4872 p99 ms', 'current/6ff4872']);
  });

  it('gives each row both req/s and p99 figures and the ratio to two places', () => {
    expect(lines[2]!.split(/\s+/)).toEqual(['token', 'GET', '/token', '1500', '14', '1000', '<1', '1.50']);
    expect(lines[3]!.split(/\s+/)).toEqual(['validate', 'GET', '/validate', '800', '7', '1000', '6', '0.80']);
  });

  it('notes each skipped row with why, after the table', () => {
    expect(lines.slice(4)).toEqual(['skipped on 6ff4872: list users (10,000): its setup did not run there']);
  });
});
