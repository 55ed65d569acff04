// What the fake answers a checked request: the sandbox simulator decides from the fixtures
// (the same file format as the sandbox), and its result becomes the service's SOAP answer.
import {
  createHiSandboxSimulator,
  HiServiceRejectedError,
  HiServiceUnreachableError,
  type HiCallContext,
  type HiFixtures,
  type IhiSearchRequest,
  type ProviderVerificationRequest,
} from '../../../src/hi-service/index.ts';
import { OPERATIONS, PROVIDER_STATUS } from './hi-wire.ts';
import {
  NO_MATCH_MESSAGES,
  writeFaultBody,
  writeIhiFound,
  writeIhiMessagesOnly,
  writeProviderFound,
  writeProviderMessagesOnly,
  writeResponseBody,
  type ServiceMessage,
} from './write-answer.ts';

/** An answer before it is wrapped in an envelope: a SOAP body (result or fault) or a bare HTTP status. */
export type Answer =
  | { kind: 'result'; body: string }
  | { kind: 'fault'; body: string }
  | { kind: 'http'; status: number };

export type ParsedRequest =
  | { operation: 'searchIHI'; request: IhiSearchRequest }
  | { operation: 'searchForProviderIndividual'; request: ProviderVerificationRequest };

export function faultAnswer(severity: 'Error' | 'Fatal' | 'Informational', code: string, reason: string): Answer {
  const messages: ServiceMessage[] = [{ code, severity, reason }];
  return { kind: 'fault', body: writeFaultBody({ code: severity === 'Fatal' ? 'Receiver' : 'Sender', reason, messages }) };
}

export function noMatchResult(operation: ParsedRequest['operation']): Answer {
  const wire = OPERATIONS[operation];
  const message = NO_MATCH_MESSAGES[operation];
  const result = operation === 'searchIHI' ? writeIhiMessagesOnly([message]) : writeProviderMessagesOnly([message]);
  return { kind: 'result', body: writeResponseBody(wire, result) };
}

function hpiiStatusOf(fixtures: HiFixtures, hpii: string): string {
  const record = fixtures.providers.find((provider) => provider.hpii_number.replace(/\D/g, '') === hpii && provider.hpii_status !== undefined);
  return record?.hpii_status === 'retired' ? PROVIDER_STATUS.retired : PROVIDER_STATUS.deactivated;
}

async function askSimulator(fixtures: HiFixtures, parsed: ParsedRequest, context: HiCallContext): Promise<Answer> {
  const simulator = createHiSandboxSimulator({ fixtures });
  if (parsed.operation === 'searchIHI') {
    const result = await simulator.searchIhi(parsed.request, context);
    if (result.kind === 'no_match') return noMatchResult('searchIHI');
    return { kind: 'result', body: writeResponseBody(OPERATIONS.searchIHI, writeIhiFound(result, parsed.request)) };
  }
  const verification = await simulator.verifyProvider(parsed.request, context);
  if (verification.kind === 'no_match') return noMatchResult('searchForProviderIndividual');
  const status = {
    verified: PROVIDER_STATUS.active,
    no_status: undefined,
    inactive: hpiiStatusOf(fixtures, parsed.request.hpii_number),
  }[verification.kind];
  return { kind: 'result', body: writeResponseBody(OPERATIONS.searchForProviderIndividual, writeProviderFound(parsed.request, status)) };
}

/** The fixture's answer: found/no match as results, `rejected` as a service fault, `unreachable` as HTTP 503. */
export async function decideAnswer(fixtures: HiFixtures, parsed: ParsedRequest, context: HiCallContext): Promise<Answer> {
  try {
    return await askSimulator(fixtures, parsed, context);
  } catch (error) {
    if (error instanceof HiServiceRejectedError) {
      return faultAnswer(error.severity, error.code, `The request was rejected (${error.severity} ${error.code}).`);
    }
    if (error instanceof HiServiceUnreachableError) return { kind: 'http', status: 503 };
    throw error;
  }
}
