// A Measurement as the bench's report code receives it, for the report tests: 10 s in five
// slices, every response 200, the given req/s; any other field as the test sets it.
import type { Measurement } from '../../bench/measure-endpoint.ts';

export function fakeMeasurement(name: string, requestsPerSecond: number, fields: Partial<Measurement> = {}): Measurement {
  return {
    name,
    method: 'POST',
    path: `/${name}`,
    requestsPerSecond,
    latencyMeanMs: 1,
    latencyP50Ms: 1,
    latencyP99Ms: 3,
    requests: requestsPerSecond * 10,
    statusCounts: { '200': requestsPerSecond * 10 },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    durationSeconds: 10,
    slices: 5,
    sample: { bodyBytes: 100 },
    ...fields,
  };
}
