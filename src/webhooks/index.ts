// The face of the webhooks feature: endpoints and secrets, the outbox's recordEvent, the event
// envelope, the dispatcher, history and replay. Code outside src/webhooks/ (other features,
// app.ts, cli/, scripts/) imports only this file; its own files import each other directly.
// test/architecture/imports.test.ts holds it.
export { createWebhooksContext, recordEvent, type WebhooksContext, WebhooksError } from './webhooks-service.ts';
export { watchDeliveryBacklog } from './webhook-backlog.ts';
export { startWebhookDispatcher } from './webhook-dispatcher.ts';
export { DEFAULT_ROTATION_OVERLAP, parseOverlap, prepareWebhookEndpoint, rotateWebhookSecret, setWebhookEndpoint, setWebhookEndpointEnabled, showWebhookEndpoint } from './webhook-endpoints.ts';
export { eventMetadata, type EventMetadata, type EventType, newEventId } from './webhook-events.ts';
export { type EventFilterInput, listWebhookAttempts, listWebhookEvents, parseEventFilter, replayWebhookEvents } from './webhook-history.ts';
export { createWebhookOutbox } from './webhook-outbox.ts';
export { pingWebhookEndpoint } from './webhook-ping.ts';
export { confirmWebhookEndpoint } from './webhook-endpoint-change.ts';
export { createWebhookRetentionSteps } from './webhook-retention.ts';
export { describeWebhooksForOpenApi } from './webhook-event-types.ts';
export { DISPENSED_EVENT, isEventTypeSubscribed, setSubscribedEventTypes, SUBSCRIBABLE_EVENT_TYPES } from './webhook-event-subscriptions.ts';
export { partnerWebhookRoutes } from './partner-webhook-routes.ts';
export { eventFeedRoutes } from './event-feed-routes.ts';
