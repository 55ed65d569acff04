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

interface AnswerRule<T> {
  answer: string;
  when: (answer: ReadAnswer, readers: AnswerReaders<T>) => boolean;
  then: (answer: ReadAnswer, readers: AnswerReaders<T>) => T;
}

/** Read in order; the first row whose `when` holds decides. */
function answerRules<T>(): AnswerRule<T>[] {
  return [
    { answer: 'unusable answer', when: (a) => a.kind === 'unusable', then: (a) => unusable(a.kind === 'unusable' ? a.reason : '') },
    {
      answer: 'fault or result with an Error or Fatal service message',
      when: (a) => a.kind !== 'unusable' && a.messages.some(isRejection),
      then: (a) => {
        throw rejectionOf(a.kind === 'unusable' ? [] : a.messages);
      },
    },
    {
      answer: 'fault without service messages',
      when: (a) => a.kind === 'fault' && a.messages.length === 0,
      then: (a) => {
        throw new HiServiceRejectedError(a.kind === 'fault' && a.soapCode === 'Sender' ? 'Error' : 'Fatal', a.kind === 'fault' ? `soap:${a.soapCode}` : '');
      },
    },
    { answer: 'fault with informational or warning messages only', when: (a) => a.kind === 'fault', then: (_a, r) => r.noMatch },
    {
      answer: 'result with an identifier',
      when: (a, r) => a.kind === 'result' && r.identifierOf(a.result) !== undefined,
      then: (a, r) => (a.kind === 'result' ? r.readFound(a.result, r.identifierOf(a.result)!) : unusable('no result')),
    },
    { answer: 'result without an identifier', when: (a) => a.kind === 'result', then: (_a, r) => r.noMatch },
  ];
}

export function mapSoapAnswer<T>(answer: ReadAnswer, readers: AnswerReaders<T>): T {
  const rule = answerRules<T>().find((candidate) => candidate.when(answer, readers));
  return rule ? rule.then(answer, readers) : unusable('no rule');
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
