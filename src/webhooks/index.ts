// The face of the webhooks feature: endpoints and secrets, the outbox's recordEvent, the event
// envelope, the dispatcher, history and replay. Code outside src/webhooks/ (other features,
// app.ts, cli/, bench/, test/) imports only this file; its own files import each other directly.
// test/architecture/imports.test.ts holds it.
export { createWebhooksContext, recordEvent, type WebhooksContext, WebhooksError } from './webhooks-service.ts';
export { describeDeliveryBacklog, watchDeliveryBacklog } from './webhook-backlog.ts';
export { classifyAddress, describeVerdict, isPublicAddress } from './webhook-address-guard.ts';
export {
  attemptClaimedDelivery,
  claimEndpointDeliveries,
  hasLeaseForAttempt,
  LEASE_MARGIN_MS,
  leaseDurationMs,
  openWebhookSender,
  recordAttemptOutcomes,
  releaseClaimedDeliveries,
  sendClaimedAttempt,
} from './webhook-deliveries.ts';
export { classifyHttpStatus, nextStepAfter, OUTCOME_CLASSES, type OutcomeClass, WEBHOOK_DELIVERY_RULES } from './webhook-delivery-rules.ts';
export { type RunningDispatcher, startWebhookDispatcher } from './webhook-dispatcher.ts';
export { EndpointWindow } from './webhook-endpoint-window.ts';
export {
  DEFAULT_ROTATION_OVERLAP,
  parseOverlap,
  prepareWebhookEndpoint,
  rotateWebhookSecret,
  setWebhookEndpoint,
  setWebhookEndpointEnabled,
  showWebhookEndpoint,
} from './webhook-endpoints.ts';
export { eventMetadata, type EventMetadata, type EventType, newEventId, type WebhookEventEnvelope } from './webhook-events.ts';
export { type EventFilterInput, listWebhookAttempts, listWebhookEvents, parseEventFilter, replayWebhookEvents } from './webhook-history.ts';
export {
  assertPublicAddresses,
  BlockedAddressError,
  createConnectLookup,
  guardLiteralHost,
  type HostResolver,
} from './webhook-host-resolution.ts';
export type { WebhookHttpClient } from './webhook-http-attempt.ts';
export { createWebhookOutbox, type WebhookOutbox } from './webhook-outbox.ts';
export { pingWebhookEndpoint } from './webhook-ping.ts';
export { createWebhookRetentionSteps } from './webhook-retention.ts';
export {
  deliveryAuthHeaders,
  generateWebhookSecret,
  isStandardWebhooksSecret,
  signatureOf,
  signWebhookPayload,
  standardSignatureOf,
} from './webhook-signature.ts';
export { type AnnouncedEventType, describeWebhooksForOpenApi } from './webhook-event-types.ts';
export {
  DISPENSED_EVENT,
  isEventTypeSubscribed,
  readSubscribedEventTypes,
  setSubscribedEventTypes,
  SUBSCRIBABLE_EVENT_TYPES,
  VENDOR_EVENT_TYPES,
} from './webhook-event-subscriptions.ts';
export { partnerWebhookRoutes } from './partner-webhook-routes.ts';
export { eventFeedRoutes } from './event-feed-routes.ts';
export { PARTNER_OVERLAP_HOURS, RECOVER_PER_SECOND } from './partner-webhooks.ts';
