// The one table every HI Service answer is mapped by. The service's "no match" is an
// informational message (as a fault, or as a result without an identifier); its code is not in
// any public source, so the table decides on severity and shape, never on a guessed code.
// Error and Fatal messages are rejections; everything that gives no usable answer (transport,
// HTTP 5xx without a fault, malformed XML, a missing or bad signature on a result) is unreachable.
import type { Element } from '@xmldom/xmldom';
import { isValidHpii, isValidIhi } from '../../identifiers/index.ts';
import {
  HiServiceRejectedError,
  HiServiceUnreachableError,
  IHI_RECORD_STATUSES,
  IHI_STATUSES,
  type IhiSearchResult,
  type ProviderVerification,
} from '../hi-service-port.ts';
import { childText, type ReadAnswer, type ServiceMessage } from './hi-soap-read.ts';
import { NS, QUALIFIERS } from './hi-soap-wire.ts';

/** What the table hands back for one operation: how a result with its identifier reads, and "no match". */
export interface AnswerReaders<T> {
  /** The result's identifier element, if the result has one. */
  identifierOf: (result: Element) => string | undefined;
  readFound: (result: Element, identifier: string) => T;
  noMatch: T;
}

const isRejection = (message: ServiceMessage) => message.severity === 'Error' || message.severity === 'Fatal';

function rejectionOf(messages: ServiceMessage[]): HiServiceRejectedError {
  const worst = messages.find((m) => m.severity === 'Fatal') ?? messages.find(isRejection)!;
  return new HiServiceRejectedError(worst.severity as 'Error' | 'Fatal', worst.code);
}

function unusable(reason: string): never {
  throw new HiServiceUnreachableError(`HI Service answer not usable: ${reason}`);
}

/** What the rows decide on, read once from the answer. */
interface AnswerFacts {
  kind: ReadAnswer['kind'];
  reason: string;
  soapCode: string;
  messages: ServiceMessage[];
  result?: Element;
}

function factsOf(answer: ReadAnswer): AnswerFacts {
  if (answer.kind === 'unusable') return { kind: 'unusable', reason: answer.reason, soapCode: '', messages: [] };
  if (answer.kind === 'fault') return { kind: 'fault', reason: '', soapCode: answer.soapCode, messages: answer.messages };
  return { kind: 'result', reason: '', soapCode: '', messages: answer.messages, result: answer.result };
}

interface AnswerRule {
  answer: string;
  when: (facts: AnswerFacts, identifier: string | undefined) => boolean;
  then: <T>(facts: AnswerFacts, readers: AnswerReaders<T>, identifier: string | undefined) => T;
}

/** Read in order; the first row whose `when` holds decides. */
const ANSWER_RULES: readonly AnswerRule[] = [
  { answer: 'unusable (transport, HTTP, XML, signature)', when: (f) => f.kind === 'unusable', then: (f) => unusable(f.reason) },
  {
    answer: 'fault or result with an Error or Fatal message',
    when: (f) => f.messages.some(isRejection),
    then: (f) => {
      throw rejectionOf(f.messages);
    },
  },
  {
    answer: 'fault without service messages',
    when: (f) => f.kind === 'fault' && f.messages.length === 0,
    then: (f) => {
      throw new HiServiceRejectedError(f.soapCode === 'Sender' ? 'Error' : 'Fatal', `soap:${f.soapCode}`);
    },
  },
  { answer: 'fault with Informational or Warning messages only', when: (f) => f.kind === 'fault', then: (_f, r) => r.noMatch },
  { answer: 'result with an identifier', when: (_f, id) => id !== undefined, then: (f, r, id) => r.readFound(f.result!, id!) },
  { answer: 'result without an identifier', when: () => true, then: (_f, r) => r.noMatch },
];

export function mapSoapAnswer<T>(answer: ReadAnswer, readers: AnswerReaders<T>): T {
  const facts = factsOf(answer);
  const identifier = facts.result ? readers.identifierOf(facts.result) : undefined;
  const rule = ANSWER_RULES.find((candidate) => candidate.when(facts, identifier))!;
  return rule.then(facts, readers, identifier);
}

/** A qualified identifier's digits; a bare 16-digit value is taken as it is. */
function stripQualifier(value: string, qualifier: string): string {
  return value.startsWith(qualifier) ? value.slice(qualifier.length) : value;
}

/** `Active` → `ACTIVE` within the port's list; a value outside it makes the answer unusable. */
function readStatus<S extends string>(result: Element, ns: string, name: string, allowed: readonly S[]): S | undefined {
  const text = childText(result, ns, name);
  if (text === undefined) return undefined;
  const upper = text.toUpperCase() as S;
  return allowed.includes(upper) ? upper : unusable(`unknown ${name}`);
}

export const IHI_ANSWER_READERS: AnswerReaders<IhiSearchResult> = {
  identifierOf: (result) => childText(result, NS.cc, 'ihiNumber'),
  readFound: (result, identifier) => {
    const ihi = stripQualifier(identifier, QUALIFIERS.ihi);
    if (!isValidIhi(ihi)) unusable('the returned IHI is not a valid IHI');
    const ihiStatus = readStatus(result, NS.cc, 'ihiStatus', IHI_STATUSES);
    const ihiRecordStatus = readStatus(result, NS.cc, 'ihiRecordStatus', IHI_RECORD_STATUSES);
    return {
      kind: 'found',
      ihi_number: ihi,
      ...(ihiStatus ? { ihi_status: ihiStatus } : {}),
      ...(ihiRecordStatus ? { ihi_record_status: ihiRecordStatus } : {}),
    };
  },
  noMatch: { kind: 'no_match' },
};

/**
 * HPI-I statuses as the service writes them (a code or its word). A status outside this list is
 * read as "no status": the provider is not verified, and nothing is claimed about why.
 */
const PROVIDER_STATUSES: Readonly<Record<string, ProviderVerification>> = {
  A: { kind: 'verified' },
  ACTIVE: { kind: 'verified' },
  D: { kind: 'inactive' },
  DEACTIVATED: { kind: 'inactive' },
  R: { kind: 'inactive' },
  RETIRED: { kind: 'inactive' },
};

export function providerAnswerReaders(requestedHpii: string): AnswerReaders<ProviderVerification> {
  return {
    identifierOf: (result) => childText(result, NS.pce, 'hpiiNumber'),
    readFound: (result, identifier) => {
      const hpii = stripQualifier(identifier, QUALIFIERS.hpii);
      if (!isValidHpii(hpii) || hpii !== requestedHpii) unusable('the returned HPI-I is not the one asked about');
      const status = childText(result, NS.pce, 'status')?.toUpperCase();
      return status === undefined ? { kind: 'no_status' } : (PROVIDER_STATUSES[status] ?? { kind: 'no_status' });
    },
    noMatch: { kind: 'no_match' },
  };
}
