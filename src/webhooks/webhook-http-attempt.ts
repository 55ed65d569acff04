// One HTTP attempt of a delivery, exactly as the spec's "Events" part describes it: a POST of
// the stored body with the three fixed headers, under one timeout covering everything from the
// name lookup to the end of the answer. Its result is an outcome class (never a thrown error),
// since the caller decides from it whether to try again.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { Agent } from 'undici';
import type { Clock } from '../platform/clock.ts';
import { classifyHttpStatus, type OutcomeClass } from './webhook-delivery-rules.ts';
import { BLOCKED_ADDRESS_CODE, createConnectLookup, guardLiteralHost, type HostResolver } from './webhook-host-resolution.ts';
import { packageExports } from '../platform/package-namespace.ts';

/** The fixed value of the interface (spec, "Events"). */
export const WEBHOOK_USER_AGENT = 'Parchment-Webhooks/1.0';
/** How much of the receiver's answer the attempt log keeps. */
export const RESPONSE_BODY_KEPT_BYTES = 4096;
/** Past this much of an answer the connection is dropped rather than read to its end. */
const RESPONSE_BODY_READ_LIMIT_BYTES = 64 * 1024;

export interface AttemptRequest {
  url: string;
  body: string;
  /** X-Webhook-Signature and the Standard Webhooks headers, made for this attempt. */
  authHeaders: Record<string, string>;
  timeoutMs: number;
}

export interface AttemptResult {
  outcome: OutcomeClass;
  statusCode: number | null;
  responseBody: string | null;
  /** Why a network-level failure happened (the error's message); null for a complete answer. */
  detail: string | null;
  startedAt: Date;
  durationMs: number;
}

export interface WebhookHttpClient {
  send(attempt: AttemptRequest): Promise<AttemptResult>;
  close(): Promise<void>;
}

export interface WebhookHttpClientOptions {
  /** Production: refuse every address that is not public, at connection time. */
  guardAddresses: boolean;
  resolveHost: HostResolver;
  clock: Clock;
}

type Undici = typeof import('undici');
let undici: Undici | undefined;

/**
 * undici (~1 MB of code) is loaded by the first attempt, not by every start of every command;
 * after that an attempt is sent without waiting for anything but the receiver.
 */
export function createWebhookHttpClient(options: WebhookHttpClientOptions): WebhookHttpClient {
  let agent: Agent | undefined;
  const agentOf = (loaded: Undici) =>
    (agent ??= new loaded.Agent({
      connect: { lookup: createConnectLookup(options.resolveHost, options.guardAddresses) },
      // Our own timer bounds each attempt; undici's would only fire later.
      headersTimeout: 0,
      bodyTimeout: 0,
    }));
  const sendWith = (loaded: Undici, attempt: AttemptRequest) => sendAttempt(loaded.request, agentOf(loaded), options, attempt);
  return {
    send: (attempt) => (undici ? sendWith(undici, attempt) : import('undici').then((loaded) => sendWith((undici = packageExports(loaded)), attempt))),
    close: async () => {
      await agent?.close();
    },
  };
}

async function sendAttempt(request: Undici['request'], agent: Agent, options: WebhookHttpClientOptions, attempt: AttemptRequest): Promise<AttemptResult> {
  const startedAt = options.clock.now();
  const started = performance.now();
  const finish = (outcome: OutcomeClass, statusCode: number | null, responseBody: string | null, detail: string | null): AttemptResult => ({
    outcome,
    statusCode,
    responseBody,
    detail,
    startedAt,
    durationMs: Math.round(performance.now() - started),
  });
  const deadline = new AttemptDeadline(attempt.timeoutMs);
  let statusCode: number | null = null;
  try {
    if (options.guardAddresses) guardLiteralHost(new URL(attempt.url).hostname);
    const response = await request(attempt.url, {
      method: 'POST',
      dispatcher: agent,
      signal: deadline,
      headers: { 'Content-Type': 'application/json', 'User-Agent': WEBHOOK_USER_AGENT, ...attempt.authHeaders },
      body: attempt.body,
    });
    statusCode = response.statusCode;
    const responseBody = await readBeginning(response.body);
    return finish(classifyHttpStatus(statusCode), statusCode, responseBody, null);
  } catch (error) {
    return finish(deadline.aborted ? 'timeout' : classifyNetworkError(error), statusCode, null, describeError(error, deadline.aborted, attempt.timeoutMs));
  } finally {
    deadline.clear();
  }
}

/**
 * An attempt's one timeout, from the name lookup to the end of the answer, as the EventEmitter
 * signal undici also accepts: an AbortController per request cost about a tenth of the
 * dispatcher's delivery rate.
 */
class AttemptDeadline extends EventEmitter {
  aborted = false;
  reason: Error | undefined;
  readonly #timer: NodeJS.Timeout;

  constructor(timeoutMs: number) {
    super();
    this.#timer = setTimeout(() => {
      this.aborted = true;
      this.reason = new Error(`no complete answer within ${timeoutMs} ms`);
      this.emit('abort');
    }, timeoutMs);
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

/**
 * The first RESPONSE_BODY_KEPT_BYTES as text; reads on (to keep the connection) up to a limit.
 * Plain stream events: an async iterator costs a promise per chunk, and most answers are one.
 */
function readBeginning(body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let readBytes = 0;
    const keep = () => {
      // PostgreSQL text cannot hold NUL; the log keeps what an operator can read.
      resolve(Buffer.concat(kept).toString('utf8').replace(/\u0000/g, '\ufffd'));
    };
    body.on('data', (chunk: Buffer) => {
      if (keptBytes < RESPONSE_BODY_KEPT_BYTES) {
        const part = chunk.subarray(0, RESPONSE_BODY_KEPT_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      readBytes += chunk.length;
      if (readBytes > RESPONSE_BODY_READ_LIMIT_BYTES) {
        body.destroy();
        keep();
      }
    });
    body.once('end', keep);
    body.once('error', reject);
  });
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** The class of a failure below HTTP, from the codes of the error and its causes. */
export function classifyNetworkError(error: unknown): OutcomeClass {
  for (const code of errorCodes(error)) {
    if (code === BLOCKED_ADDRESS_CODE) return 'blocked_address';
    if (DNS_CODES.has(code)) return 'dns';
    if (TIMEOUT_CODES.has(code)) return 'timeout';
    if (TLS_CODE.test(code)) return 'tls';
  }
  return 'connect';
}

function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (let current = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; current && depth < 5; depth++) {
    if (typeof current.code === 'string') codes.push(current.code);
    current = current.cause as typeof current;
  }
  return codes;
}

function describeError(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no complete answer within ${timeoutMs} ms`;
  const parts: string[] = [];
  for (let current = error as { message?: unknown; cause?: unknown } | undefined, depth = 0; current && depth < 3; depth++) {
    if (typeof current.message === 'string' && current.message !== '' && !parts.includes(current.message)) parts.push(current.message);
    current = current.cause as typeof current;
  }
  return (parts.join(': ') || String(error)).slice(0, 500);
}
