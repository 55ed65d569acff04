// The closed set of error codes the API returns, each mapped once to its HTTP status,
// problem-type slug and title. Services throw ApiError; the error handler renders it.
// A key is the envelope's `code` unless its entry names another (`code`): a more specific
// problem type under the same machine code, as the vendor's patient-not-found is.
export const ERROR_CODES = {
  INVALID_REQUEST: { status: 400, slug: 'invalid-request', title: 'Invalid request' },
  INVALID_USER_PARAMETERS: { status: 400, slug: 'invalid-request', title: 'Invalid request' },
  UNAUTHORIZED: { status: 401, slug: 'authentication-required', title: 'Authentication required' },
  FORBIDDEN: { status: 403, slug: 'access-denied', title: 'Insufficient permissions' },
  RESOURCE_NOT_FOUND: { status: 404, slug: 'not-found', title: 'Resource not found' },
  PATIENT_NOT_FOUND: { status: 404, slug: 'patient-not-found', title: 'Patient not found', code: 'RESOURCE_NOT_FOUND' },
  CONFLICT: { status: 409, slug: 'resource-conflict', title: 'Resource conflict' },
  USER_ALREADY_EXISTS: { status: 409, slug: 'resource-conflict', title: 'Resource conflict' },
  REQUEST_TIMEOUT: { status: 408, slug: 'request-timeout', title: 'Request timeout' },
  PAYLOAD_TOO_LARGE: { status: 413, slug: 'payload-too-large', title: 'Payload too large' },
  URI_TOO_LONG: { status: 414, slug: 'uri-too-long', title: 'URI too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, slug: 'unsupported-media-type', title: 'Unsupported media type' },
  VALIDATION_ERROR: { status: 422, slug: 'validation-error', title: 'Validation failed' },
  RATE_LIMIT_EXCEEDED: { status: 429, slug: 'rate-limit', title: 'Rate limit exceeded' },
  HEADERS_TOO_LARGE: { status: 431, slug: 'headers-too-large', title: 'Request header fields too large' },
  INTERNAL_ERROR: { status: 500, slug: 'internal-error', title: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, slug: 'service-unavailable', title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; slug: string; title: string; code?: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The `code` an error envelope shows for `code`. */
export function envelopeCodeOf(code: ErrorCode): string {
  const entry = ERROR_CODES[code];
  return 'code' in entry ? entry.code : code;
}

/** The `code` values of entries in `error.validation[]`. */
export type ValidationCode = 'VALIDATION_ERROR' | 'REQUIRED_FIELD' | 'HI_SERVICE_NO_MATCH' | 'HI_SERVICE_NOT_VERIFIED';

export interface ValidationIssue {
  field: string;
  message: string;
  code: ValidationCode;
}

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly validation?: ValidationIssue[],
    /** Extra response headers, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.status = ERROR_CODES[code].status;
  }
}

export const unauthorized = (detail: string) => new ApiError('UNAUTHORIZED', detail);
export const notFound = (detail: string) => new ApiError('RESOURCE_NOT_FOUND', detail);
export const patientNotFound = (detail = 'Patient not found') => new ApiError('PATIENT_NOT_FOUND', detail);
export const invalidRequest = (detail: string) => new ApiError('INVALID_REQUEST', detail);

export function validationFailed(issues: ValidationIssue[], detail = 'The request body failed validation'): ApiError {
  return new ApiError('VALIDATION_ERROR', detail, issues);
}

/** The three 401 details the spec names. */
export const AUTH_DETAIL = {
  token: 'Valid authentication token is required',
  credentials: 'Invalid client credentials',
  scope: 'Insufficient scope',
} as const;
