// What the fake answers a checked request: the sandbox simulator decides from the fixtures
// (the same file format as the sandbox), and its result becomes the service's SOAP answer.
import { createHiSandboxSimulator, type HiCallContext } from '../../../src/hi-service/index.ts';
import { HiServiceRejectedError, HiServiceUnreachableError, type IhiSearchRequest, type ProviderVerificationRequest } from '../../../src/hi-service/hi-service-port.ts';
import { type HiFixtures } from '../../../src/hi-service/hi-fixture-file.ts';
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

// The service reads a street type code (streetType) as its word; a fixture may hold either form.
const STREET_TYPE_WORDS: Record<string, string> = {
  AVE: 'Avenue', BVD: 'Boulevard', CCT: 'Circuit', CL: 'Close', CRES: 'Crescent', CT: 'Court', DR: 'Drive', ESP: 'Esplanade',
  GR: 'Grove', HWY: 'Highway', LANE: 'Lane', PDE: 'Parade', PL: 'Place', RD: 'Road', SQ: 'Square', ST: 'Street', TCE: 'Terrace', WAY: 'Way',
};

/** The request as read, then (for a street address ending in a type code) with the code's word. */
function readingsOf(request: IhiSearchRequest): IhiSearchRequest[] {
  const address = request.australian_street_address;
  if (request.path !== 'australian-street-address' || address === undefined) return [request];
  const words = address.street_name.split(' ');
  const word = STREET_TYPE_WORDS[words.at(-1)!.toUpperCase()];
  if (word === undefined) return [request];
  const street_name = [...words.slice(0, -1), word].join(' ');
  return [request, { ...request, australian_street_address: { ...address, street_name } }];
}

function hpiiStatusOf(fixtures: HiFixtures, hpii: string): string {
  const record = fixtures.providers.find((provider) => provider.hpii_number.replace(/\D/g, '') === hpii && provider.hpii_status !== undefined);
  return record?.hpii_status === 'retired' ? PROVIDER_STATUS.retired : PROVIDER_STATUS.deactivated;
}

async function askSimulator(fixtures: HiFixtures, parsed: ParsedRequest, context: HiCallContext): Promise<Answer> {
  const simulator = createHiSandboxSimulator({ fixtures });
  if (parsed.operation === 'searchIHI') {
    for (const reading of readingsOf(parsed.request)) {
      const result = await simulator.searchIhi(reading, context);
      if (result.kind === 'found') return { kind: 'result', body: writeResponseBody(OPERATIONS.searchIHI, writeIhiFound(result, parsed.request)) };
    }
    return noMatchResult('searchIHI');
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
