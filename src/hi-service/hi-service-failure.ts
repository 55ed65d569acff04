// Why an HI Service call gave no answer to use, classified once for every caller: the audit
// entries (precheck, provider lookups, `erx hi check`), the metrics and the traces all name a
// failure by this one outcome. The order matters: a rejection is a subclass of "unreachable"
// (callers that only need "no answer" may catch the one class), so it is tested first.
import { HiServiceRejectedError, HiServiceUnreachableError } from './hi-service-port.ts';

export type HiFailure =
  /** The service answered with an Error or Fatal status; `reason` is `<severity> <code>`. */
  | { outcome: 'rejected'; severity: 'Error' | 'Fatal'; code: string; reason: string }
  /** No answer came: transport failure, timeout, a malformed answer or the request's budget spent. */
  | { outcome: 'unreachable'; reason: string }
  /** Not an HI Service failure at all (a fault in erx or the adapter): callers rethrow it. */
  | { outcome: 'error' };

export type HiFailureOutcome = HiFailure['outcome'];

export function classifyHiFailure(error: unknown): HiFailure {
  if (error instanceof HiServiceRejectedError) return { outcome: 'rejected', severity: error.severity, code: error.code, reason: `${error.severity} ${error.code}` };
  if (error instanceof HiServiceUnreachableError) return { outcome: 'unreachable', reason: error.message };
  return { outcome: 'error' };
}
