// The bench measures each row in slices that alternate with slices of its baseline
// (bench/measure-endpoint.ts): how the seconds are split, the A B B A order, and how the
// slices of one request are merged into one measurement.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSlices, sliceOrder, summarizeSlices, type RawRun } from '../../bench/measure-endpoint.ts';
import type { ResolvedRequest } from '../../bench/bench-requests.ts';

describe('planSlices', () => {
  it.each([
    [10, 5, 2],
    [11, 5, 2.2],
    [3, 1, 3],
    [2, 1, 2],
    [1, 1, 1],
    [60, 30, 2],
  ])('%d s → %d slices of %d s', (duration, count, seconds) => {
    expect(planSlices(duration)).toEqual({ count, seconds });
  });
});

describe('sliceOrder', () => {
  it('alternates A B, B A, so that a steady drift weighs on both sides alike', () => {
    const order = [0, 1, 2, 3].flatMap((index) => sliceOrder(index, 'baseline', 'row'));
    expect(order).toEqual(['baseline', 'row', 'row', 'baseline', 'baseline', 'row', 'row', 'baseline']);
  });
});

describe('summarizeSlices', () => {
  let server: http.Server;
  let url: string;
  // Every third request answers 201, the rest 200: two statuses to add up across slices.
  let served = 0;

  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      served += 1;
      response.writeHead(served % 3 === 0 ? 201 : 200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const runSlice = (amount: number) =>
    new Promise<RawRun>((resolve, reject) => {
      autocannon({ url, connections: 2, amount, skipAggregateResult: true }, (error: unknown, result: autocannon.Result) =>
        error ? reject(error) : resolve(result as unknown as RawRun),
      );
    });

  // Two real runs (the first test makes them), their latency histograms still encoded.
  let slices: RawRun[] = [];
  const request: ResolvedRequest = { name: 'probe', method: 'GET', path: '/', headers: {}, nextBody: () => undefined, varies: false };

  it('adds up the slices: responses, statuses, seconds, and req/s as all responses over all seconds', async () => {
    slices = [await runSlice(300), await runSlice(200)];
    const summary = summarizeSlices(request, slices, { bodyBytes: 2 });
    const seconds = slices[0]!.duration + slices[1]!.duration;

    expect(summary.slices).toBe(2);
    expect(summary.requests).toBe(500);
    expect(summary.statusCounts['200']! + summary.statusCounts['201']!).toBe(500);
    expect(summary.statusCounts['201']).toBeGreaterThan(0);
    expect(summary.durationSeconds).toBeCloseTo(seconds, 2);
    expect(summary.requestsPerSecond).toBeCloseTo(500 / seconds, 0);
    expect(summary.latencyP99Ms).toBeGreaterThanOrEqual(summary.latencyP50Ms);
    expect(summary.sample).toEqual({ bodyBytes: 2 });
  });

  it("gives the server's CPU per response over all slices when every slice has it, and none when one lacks it", () => {
    const withCpu = [{ ...slices[0]!, cpuSeconds: 0.006 }, { ...slices[1]!, cpuSeconds: 0.004 }];
    expect(summarizeSlices(request, withCpu, { bodyBytes: 2 }).cpuMicrosPerRequest).toBe(20);
    expect(summarizeSlices(request, [withCpu[0]!, slices[1]!], { bodyBytes: 2 }).cpuMicrosPerRequest).toBeUndefined();
  });

  it('leaves the slices as they were (aggregating would add into the first one)', () => {
    const before = structuredClone(slices);
    summarizeSlices(request, slices, { bodyBytes: 2 });
    summarizeSlices(request, slices, { bodyBytes: 2 });
    expect(slices).toEqual(before);
  });

  it('counts only the expected status as passed when the row names one', () => {
    const summary = summarizeSlices({ ...request, expectStatus: 201 }, slices, { bodyBytes: 2 });
    expect(summary.requests).toBe(summary.statusCounts['201']);
    expect(summary.requests).toBeLessThan(500);
  });
});
