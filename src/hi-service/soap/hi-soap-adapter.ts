// The HiServicePort over SOAP: writes the message, signs it with the NASH certificate, posts it
// over mutual TLS, and maps the answer by the one table. Nothing of a message, identifier or
// demographic is logged or put in an error: errors carry only the service's codes.
import type { HiCallContext, HiServicePort, IhiSearchRequest, ProviderVerificationRequest } from '../hi-service-port.ts';
import { IHI_ANSWER_READERS, mapSoapAnswer, providerAnswerReaders, type AnswerReaders } from './hi-soap-answers.ts';
import { soapContentType, writeEnvelope } from './hi-soap-envelope.ts';
import { writeProviderSearchBody, writeSearchIhiBody } from './hi-soap-messages.ts';
import { readSoapAnswer } from './hi-soap-read.ts';
import type { SoapHiSettings } from './hi-soap-settings.ts';
import { createSoapTransport } from './hi-soap-transport.ts';
import { SEARCH_IHI, SEARCH_PROVIDER_INDIVIDUAL, type HiOperation } from './hi-soap-wire.ts';
import { signEnvelope } from './hi-xml-signature.ts';

export function createSoapHiService(settings: SoapHiSettings): HiServicePort {
  const transport = createSoapTransport(settings);
  const now = settings.now ?? (() => new Date());

  /** Writes the payload first: a request with nothing to search on is "no match", never sent. */
  async function call<T>(operation: HiOperation, writePayload: () => string | undefined, context: HiCallContext, readers: AnswerReaders<T>): Promise<T> {
    const payload = writePayload();
    if (payload === undefined) return readers.noMatch;
    const envelope = writeEnvelope({
      operation,
      payload,
      endpoint: settings.endpoint,
      product: settings.product,
      userQualifier: settings.userQualifier,
      userId: context.userId,
      hpio: context.hpio,
      now: now(),
    });
    const { body, user, timestamp } = envelope.ids;
    const signed = signEnvelope(envelope.xml, [timestamp, user, body], {
      keyPem: settings.certificate.keyPem,
      certPem: settings.certificate.certPem,
      signatureAlgorithm: settings.signatureAlgorithm,
      digestAlgorithm: settings.digestAlgorithm,
    });
    const answer = await transport.post(signed, soapContentType(operation.action), context.signal);
    const read = readSoapAnswer(answer, operation, { trustedCaPem: settings.trustedCaPem, signerSpkiPins: settings.signerSpkiPins, now: now() }, envelope.messageId);
    return mapSoapAnswer(read, readers);
  }

  return {
    searchIhi: (request: IhiSearchRequest, context: HiCallContext) =>
      call(SEARCH_IHI, () => writeSearchIhiBody(request), context, IHI_ANSWER_READERS),
    verifyProvider: (request: ProviderVerificationRequest, context: HiCallContext) =>
      call(SEARCH_PROVIDER_INDIVIDUAL, () => writeProviderSearchBody(request), context, providerAnswerReaders(request.hpii_number.trim())),
  };
}
