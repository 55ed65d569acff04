// The PDS of integration tests that need it to misbehave: a recording double around a PDS (the
// sandbox simulator by default) that records every call and injects every failure the port
// has: a refusal, an outage, a timeout (a call that never answers, bounded by the timeout
// wrapper like any adapter) and an untyped throw. It can also hold a call until the test lets
// it go (to kill a process while a submission is in flight).
import type { PdsPort, PdsResult, PdsSandbox } from '../../src/pds/index.ts';
import { refused, unreachable } from '../../src/pds/pds-port.ts';
import { withPdsTimeout } from '../../src/pds/pds-timeout.ts';

export type PdsMethod = 'submit' | 'cancel' | 'cease' | 'resendToken' | 'readDispensing';
export type InjectedFailure = { refuse: { code: string; message: string } } | 'unreachable' | 'timeout' | 'throw';

export interface RecordingPds extends PdsPort, PdsSandbox {
  /** Every call, in order: the method and its first argument (the submission or the SCID). */
  calls: Array<{ method: PdsMethod; argument: unknown }>;
  /** The next call of `method` fails so (each call of a list takes the next entry). */
  failNext(method: PdsMethod, ...failures: InjectedFailure[]): void;
  /** Every call of `method` fails so until cleared (undefined). */
  failAlways(method: PdsMethod, failure: InjectedFailure | undefined): void;
  reset(): void;
}

function injected(failure: InjectedFailure, signal: AbortSignal | undefined): Promise<PdsResult<never>> {
  if (failure === 'throw') return Promise.reject(new Error('injected: the adapter threw'));
  if (failure === 'unreachable') return Promise.resolve(unreachable('connection', 'injected: the PDS is unreachable'));
  if (failure === 'timeout') {
    return new Promise((resolve) => signal?.addEventListener('abort', () => resolve(unreachable('timeout', 'injected: no answer')), { once: true }));
  }
  return Promise.resolve(refused(failure.refuse.code, failure.refuse.message));
}

/** `inner` recorded and with failures injected; every call bounded by `timeoutMs` as the configured PDS is. */
export function createRecordingPds(inner: PdsPort & PdsSandbox, timeoutMs = 200): RecordingPds {
  const calls: RecordingPds['calls'] = [];
  const next = new Map<PdsMethod, InjectedFailure[]>();
  const always = new Map<PdsMethod, InjectedFailure>();
  const take = (method: PdsMethod) => next.get(method)?.shift() ?? always.get(method);
  function wrap<Argument, Value>(method: PdsMethod, call: (argument: Argument, signal?: AbortSignal) => Promise<PdsResult<Value>>) {
    return (argument: Argument, signal?: AbortSignal): Promise<PdsResult<Value>> => {
      calls.push({ method, argument });
      const failure = take(method);
      return failure === undefined ? call(argument, signal) : injected(failure, signal);
    };
  }
  const raw: PdsPort = {
    name: `recording ${inner.name}`,
    submit: wrap('submit', (submission, signal) => inner.submit(submission as Parameters<PdsPort['submit']>[0], signal)),
    cancel: wrap('cancel', (scid: string, signal) => inner.cancel(scid, signal)),
    cease: wrap('cease', (scid: string, signal) => inner.cease(scid, signal)),
    resendToken: wrap('resendToken', (scid: string, signal) => inner.resendToken(scid, signal)),
    readDispensing: wrap('readDispensing', (scid: string, signal) => inner.readDispensing(scid, signal)),
  };
  const bounded = withPdsTimeout(raw, timeoutMs);
  return {
    ...bounded,
    calls,
    dispense: (scid, at) => inner.dispense(scid, at),
    failNext: (method, ...failures) => next.set(method, [...(next.get(method) ?? []), ...failures]),
    failAlways: (method, failure) => (failure === undefined ? always.delete(method) : always.set(method, failure)),
    reset() {
      calls.length = 0;
      next.clear();
      always.clear();
    },
  };
}
