// What a call throws: ErxApiError for any answer outside 2xx (after the retries the client
// allows), carrying the status and erx's error envelope (problem details under `error`);
// ErxNetworkError when no answer came (after retries); WebhookVerificationError from verifyWebhook.

/** One entry of `error.validation`. */
export interface ErxValidationIssue {
  field: string;
  message: string;
  code: string;
}

/** The problem details erx answers under `error`. */
export interface ErxProblem {
  type: string;
  title: string;
  detail: string;
  instance?: string;
  validation?: ErxValidationIssue[];
}

/** erx's error envelope. */
export interface ErxErrorEnvelope {
  success: false;
  statusCode: number;
  code?: string;
  error: ErxProblem;
  timestamp: string;
  requestId: string;
  meta: { apiVersion: string };
}

function isErrorEnvelope(body: unknown): body is ErxErrorEnvelope {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as ErxProblem).detail === 'string';
}

export class ErxApiError extends Error {
  override name = 'ErxApiError';
  /** The envelope, or undefined when the answer was not erx's (a proxy's HTML page, say). */
  readonly envelope: ErxErrorEnvelope | undefined;

  constructor(
    readonly status: number,
    /** The parsed JSON body, or the text when it was not JSON. */
    readonly body: unknown,
    readonly headers: Headers,
    readonly method: string,
    readonly path: string,
  ) {
    const envelope = isErrorEnvelope(body) ? body : undefined;
    super(envelope ? `${method.toUpperCase()} ${path}: ${status} ${envelope.error.title}: ${envelope.error.detail}` : `${method.toUpperCase()} ${path}: ${status}`);
    this.envelope = envelope;
  }

  /** The envelope's machine code (e.g. `UNAUTHORIZED`, `VALIDATION_ERROR`). */
  get code(): string | undefined {
    return this.envelope?.code;
  }

  get problem(): ErxProblem | undefined {
    return this.envelope?.error;
  }

  get requestId(): string | undefined {
    return this.envelope?.requestId ?? this.headers.get('x-request-id') ?? undefined;
  }
}

export class ErxNetworkError extends Error {
  override name = 'ErxNetworkError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly attempts: number,
    options: { cause: unknown },
  ) {
    super(`${method.toUpperCase()} ${path}: no answer after ${attempts} attempt(s)`, options);
  }
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}
