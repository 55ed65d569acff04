// @erx/client: a typed client for erx's partner API, and verifyWebhook for its deliveries.
export { createErxClient, DEFAULT_SCOPES, type ErxClient, type ErxClientOptions, type ErxScope } from './client.js';
export type { EventPage, PageOptions, Prescription, PrescriptionPage } from './client-methods.js';
export { ErxApiError, ErxNetworkError, WebhookVerificationError, type ErxErrorEnvelope, type ErxProblem, type ErxValidationIssue } from './errors.js';
export type { BodyOf, Call, DataOf, ErxEventType, ErxWebhookEvent, HttpMethod, Operation, PathsWith, QueryOf, RequestOptions, SuccessBody, paths, webhooks } from './operations.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry-policy.js';
export { verifyWebhook, type VerifiedWebhook, type VerifyWebhookOptions, type WebhookScheme } from './webhooks.js';
