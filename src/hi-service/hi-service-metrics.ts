// Any HI Service adapter, measured: each call's duration and outcome, per operation and search
// path, into the process's metrics. A decorator around the port (runtime.ts wraps the adapter it
// builds), so neither the adapters nor their callers know about metrics.
import type { HiCallOutcome, HiOperation, Metrics } from '../platform/metrics/metrics.ts';
import { classifyHiFailure } from './hi-service-failure.ts';
import type { HiServicePort } from './hi-service-port.ts';

async function measured<T extends { kind: HiCallOutcome }>(metrics: Metrics, operation: HiOperation, searchPath: string | undefined, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const answer = await call();
    metrics.recordHiServiceCall(operation, searchPath, answer.kind, (performance.now() - started) / 1000);
    return answer;
  } catch (error) {
    metrics.recordHiServiceCall(operation, searchPath, classifyHiFailure(error).outcome, (performance.now() - started) / 1000);
    throw error;
  }
}

/** The port itself when metrics are off; otherwise the same port, each call measured. */
export function measureHiService(port: HiServicePort, metrics: Metrics): HiServicePort {
  if (!metrics.enabled) return port;
  return {
    searchIhi: (request, context) => measured(metrics, 'searchIhi', request.path, () => port.searchIhi(request, context)),
    verifyProvider: (request, context) => measured(metrics, 'verifyProvider', undefined, () => port.verifyProvider(request, context)),
  };
}
