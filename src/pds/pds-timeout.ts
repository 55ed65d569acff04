// Every call to the PDS is bounded by ERX_PDS_TIMEOUT_MS: past it the call counts as
// unreachable ('timeout'), and the adapter is told to give up through the signal. A call that
// throws (a bug, a dropped connection the adapter did not type) is unreachable too, never a
// refusal: only the PDS refuses.
import { unreachable, type PdsFailure, type PdsPort, type PdsResult } from './pds-port.ts';

async function bounded<Value>(timeoutMs: number, call: (signal: AbortSignal) => Promise<PdsResult<Value>>): Promise<PdsResult<Value>> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<PdsFailure>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(unreachable('timeout', `the PDS did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(controller.signal), timedOut]);
  } catch (error) {
    return unreachable('connection', `the PDS call failed: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

/** `port` with each call bounded by `timeoutMs`. */
export function withPdsTimeout<Port extends PdsPort>(port: Port, timeoutMs: number): Port {
  return {
    ...port,
    name: port.name,
    submit: (submission) => bounded(timeoutMs, (signal) => port.submit(submission, signal)),
    cancel: (scid) => bounded(timeoutMs, (signal) => port.cancel(scid, signal)),
    cease: (scid) => bounded(timeoutMs, (signal) => port.cease(scid, signal)),
    resendToken: (scid) => bounded(timeoutMs, (signal) => port.resendToken(scid, signal)),
    readDispensing: (scid) => bounded(timeoutMs, (signal) => port.readDispensing(scid, signal)),
  };
}
