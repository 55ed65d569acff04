// Posts a SOAP message over mutual TLS: the NASH certificate as the client certificate, the
// endpoint trusted through ERX_HI_CA when given (else Node's system store). Each call ends at
// its timeout or when the caller's signal aborts, whichever comes first; every failure to get a
// whole answer is HiServiceUnreachableError, with a message that carries no part of the message.
import https from 'node:https';
import { HiServiceUnreachableError } from '../hi-service-port.ts';
import type { NashCertificate } from './nash-certificate.ts';

/** Answers larger than this are not HI Service answers (a search result is a few kilobytes). */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface SoapTransportOptions {
  endpoint: string;
  certificate: NashCertificate;
  trustedCaPem?: string;
  timeoutMs: number;
}

export interface SoapAnswer {
  status: number;
  contentType: string;
  body: string;
}

export interface SoapTransport {
  post(xml: string, contentType: string, signal?: AbortSignal): Promise<SoapAnswer>;
  close(): void;
}

function unreachable(reason: string): HiServiceUnreachableError {
  return new HiServiceUnreachableError(`HI Service unreachable: ${reason}`);
}

function readAnswer(
  response: import('node:http').IncomingMessage,
  resolve: (answer: SoapAnswer) => void,
  fail: (fallback: string) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) response.destroy(unreachable('the answer is too large'));
    else chunks.push(chunk);
  });
  response.on('error', () => fail('the answer was cut off'));
  response.on('aborted', () => fail('the answer was cut off'));
  response.on('end', () => {
    const contentType = String(response.headers['content-type'] ?? '');
    resolve({ status: response.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString('utf8') });
  });
}

export function createSoapTransport(options: SoapTransportOptions): SoapTransport {
  const url = new URL(options.endpoint);
  if (url.protocol !== 'https:') throw new Error('ERX_HI_ENDPOINT must be an https URL');
  const { keyPem, certPem, chainPems } = options.certificate;
  const agent = new https.Agent({
    keepAlive: true,
    key: keyPem,
    cert: [certPem, ...chainPems].join('\n'),
    ...(options.trustedCaPem ? { ca: options.trustedCaPem } : {}),
  });

  function post(xml: string, contentType: string, callerSignal?: AbortSignal): Promise<SoapAnswer> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([timeout, callerSignal]) : timeout;
    if (signal.aborted) return Promise.reject(unreachable(timeout.aborted ? 'timed out' : 'aborted'));
    const payload = Buffer.from(xml, 'utf8');
    return new Promise<SoapAnswer>((resolve, reject) => {
      const request = https.request(url, {
        method: 'POST',
        agent,
        signal,
        headers: { 'content-type': contentType, 'content-length': payload.length, accept: 'application/soap+xml' },
      });
      const fail = (fallback: string) => reject(unreachable(signal.aborted ? (timeout.aborted ? 'timed out' : 'aborted') : fallback));
      request.on('response', (response) => readAnswer(response, resolve, fail));
      request.on('error', () => fail('no answer'));
      request.end(payload);
    });
  }

  return { post, close: () => agent.destroy() };
}
