// The partner self-service routes under /v1/partner/, authenticated with the partner's own
// credentials (route auth kind `partner`): its endpoint, its secret, its events. Each makes one
// call to partner-webhooks.ts; a WebhooksError becomes the spec's error envelope (404 for an
// event that is not the partner's, 422 for input the service refuses).
import { Type } from '@sinclair/typebox';
import { partnerOf } from '../auth/index.ts';
import { ApiError, notFound } from '../platform/http/api-error.ts';
import { errorResponses, SuccessEnvelopeSchema } from '../platform/http/envelope.ts';
import type { App, RouteModule } from '../route-module.ts';
import { listEventTypes } from './webhook-event-types.ts';
import { DELIVERY_STATUSES } from './webhook-history.ts';
import {
  listPartnerEvents,
  PARTNER_OVERLAP_HOURS,
  PartnerEventNotFound,
  PartnerLimitReached,
  PartnerRecoverRunning,
  PartnerWithdrawn,
  pingPartnerEndpoint,
  recoverPartnerEvents,
  replayPartnerEvent,
  rotatePartnerSecret,
  setPartnerEndpoint,
  setPartnerEventTypes,
  showPartnerEndpoint,
  showPartnerEvent,
} from './partner-webhooks.ts';
import { WebhooksError, type WebhooksContext } from './webhooks-service.ts';

const tags = ['partner self-service'];
const auth = { kind: 'partner' } as const;
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);
const Loose = (properties: Parameters<typeof Type.Object>[0]) => Type.Object(properties, { additionalProperties: true });

const EndpointView = Loose({
  partner_id: Type.String(),
  webhook_url: Nullable(Type.String()),
  enabled: Type.Boolean(),
  secret_issued_at: Nullable(Type.String()),
  standard_webhooks: Type.Boolean({ description: 'Whether deliveries carry webhook-id, webhook-timestamp and webhook-signature; false for a secret issued before them: rotate to upgrade.' }),
  previous_secret_valid_until: Nullable(Type.String()),
  deliveries: Type.Object({ pending: Type.Integer(), delivered: Type.Integer(), failed: Type.Integer() }),
  event_types: Type.Array(Type.String(), { description: "The event types the endpoint receives; by default the vendor's four." }),
  pending_change: Type.Union([Type.Object({ url: Type.String(), takes_effect_at: Type.String() }), Type.Null()], {
    description: 'A change of URL still waiting: deliveries go to webhook_url until takes_effect_at (or until the operator confirms it).',
  }),
});
const EventTypesSet = Type.Object({ partner_id: Type.String(), event_types: Type.Array(Type.String()) });
const SetEventTypesBody = Type.Object({ event_types: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 20 }) }, { additionalProperties: false });
const EndpointSet = Loose({
  partner_id: Type.String(),
  webhook_url: Type.String(),
  previous_url: Nullable(Type.String()),
  webhook_secret: Nullable(Type.String()),
  takes_effect_at: Type.String({ description: 'When deliveries start going to webhook_url: now for a first registration, else after the operator\'s delay (ERX_ENDPOINT_CHANGE_DELAY_MINUTES).' }),
  previous_url_notified: Type.Union([Type.Boolean(), Type.Null()], { description: 'Whether previous_url answered 2xx to its signed webhook.endpoint_changed; null when there was none.' }),
});
const SecretRotated = Loose({ partner_id: Type.String(), webhook_secret: Type.String({ description: 'Shown once.' }), previous_secret_valid_until: Nullable(Type.String()) });
const PingResult = Loose({ partner_id: Type.String(), url: Type.String(), event_id: Type.String(), status_code: NullableInt, latency_ms: Type.Integer(), ok: Type.Boolean(), outcome: Type.String(), detail: Nullable(Type.String()) });
const EventSummary = Loose({
  event_id: Type.String(),
  event_type: Type.String(),
  organization_id: Type.String(),
  created_at: Type.String(),
  status: Type.String(),
  attempts: Type.Integer(),
  last_outcome: Nullable(Type.String()),
  last_status_code: NullableInt,
  finished_at: Nullable(Type.String()),
});
const EventPage = Type.Object({ events: Type.Array(EventSummary), next_cursor: Nullable(Type.String()) });
const Attempt = Type.Object({
  attempt_number: Type.Integer(),
  started_at: Type.String(),
  status_code: NullableInt,
  duration_ms: Type.Integer(),
  outcome: Type.String(),
  error: Nullable(Type.String()),
  response_body: Nullable(Type.String({ description: 'The first 1,024 bytes of the answer.' })),
});
const EventDetail = Loose({
  event_id: Type.String(),
  event_type: Type.String(),
  deliveries: Type.Array(Loose({ delivery_id: Type.String(), reason: Type.String(), status: Type.String(), attempts: Type.Array(Attempt) })),
});
const Replayed = Type.Object({ event_id: Type.String(), delivery_id: Type.String() });
const Recovered = Type.Object({ dry_run: Type.Boolean(), count: Type.Integer(), per_second: Type.Integer(), event_ids: Type.Array(Type.String()) });
const EventTypes = Type.Array(Type.Object({ event_type: Type.String(), description: Type.String(), schema: Type.Object({}, { additionalProperties: true }) }));

const EventParams = Type.Object({ event_id: Type.String({ maxLength: 64 }) });
const SetEndpointBody = Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }) }, { additionalProperties: false });
const RotateBody = Type.Object({ overlap_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: PARTNER_OVERLAP_HOURS.max, default: PARTNER_OVERLAP_HOURS.default })) }, { additionalProperties: false });
const EventsQuery = Type.Object(
  {
    status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
    event_type: Type.Optional(Type.String({ maxLength: 64 })),
    organization_id: Type.Optional(Type.String({ format: 'uuid' })),
    since: Type.Optional(Type.String({ format: 'date-time' })),
    until: Type.Optional(Type.String({ format: 'date-time' })),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 100, default 50' })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
const RecoverBody = Type.Object(
  { since: Type.String({ format: 'date-time' }), until: Type.Optional(Type.String({ format: 'date-time' })), dry_run: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);

/** A refusal of the service as the spec's envelope. */
async function answering<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PartnerEventNotFound) throw notFound(error.message);
    if (error instanceof PartnerWithdrawn) throw new ApiError('FORBIDDEN', error.message);
    if (error instanceof PartnerLimitReached) {
      const headers = error.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(error.retryAfterSeconds) };
      throw new ApiError(error instanceof PartnerRecoverRunning ? 'CONFLICT' : 'RATE_LIMIT_EXCEEDED', error.message, undefined, headers);
    }
    if (error instanceof WebhooksError) throw new ApiError('VALIDATION_ERROR', error.message);
    throw error;
  }
}

const responses = <T extends Parameters<typeof SuccessEnvelopeSchema>[0]>(data: T, ...errors: number[]) => ({ 200: SuccessEnvelopeSchema(data), ...errorResponses(422, ...errors) });

function register(app: App, ctx: WebhooksContext): void {
  app.get('/v1/partner/webhook-endpoint', { config: { auth }, schema: { summary: "The partner's webhook endpoint (never its secret)", tags, response: responses(EndpointView) } }, async (request, reply) =>
    reply.success(200, 'Webhook endpoint retrieved', await answering(() => showPartnerEndpoint(ctx, partnerOf(request)))),
  );
  app.put(
    '/v1/partner/webhook-endpoint',
    { config: { auth }, schema: { summary: 'Register or change the endpoint URL (https and public addresses in production); the first registration shows its secret once; a change takes effect after a delay and is announced to the previous URL', tags, body: SetEndpointBody, response: responses(EndpointSet) } },
    async (request, reply) => reply.success(200, 'Webhook endpoint set', await answering(() => setPartnerEndpoint(ctx, partnerOf(request), request.body.url))),
  );
  app.put(
    '/v1/partner/webhook-endpoint/event-types',
    {
      config: { auth },
      schema: { summary: "Choose the event types the endpoint receives (default: the vendor's four; add prescription.dispensed to hear of dispenses)", tags, body: SetEventTypesBody, response: responses(EventTypesSet) },
    },
    async (request, reply) => reply.success(200, 'Webhook event types set', await answering(() => setPartnerEventTypes(ctx, partnerOf(request), request.body.event_types))),
  );
  app.post(
    '/v1/partner/webhook-endpoint/rotate-secret',
    { config: { auth }, schema: { summary: 'Issue a new secret, shown once; the old one keeps signing for overlap_hours', tags, body: Type.Optional(RotateBody), response: responses(SecretRotated) } },
    async (request, reply) => reply.success(200, 'Webhook secret rotated', await answering(() => rotatePartnerSecret(ctx, partnerOf(request), request.body?.overlap_hours))),
  );
  app.post('/v1/partner/webhook-endpoint/ping', { config: { auth }, schema: { summary: 'Send one signed webhook.ping now and answer what the endpoint said (one every 10 seconds)', tags, response: responses(PingResult, 429) } }, async (request, reply) =>
    reply.success(200, 'Webhook endpoint pinged', await answering(() => pingPartnerEndpoint(ctx, partnerOf(request)))),
  );
  app.get(
    '/v1/partner/webhook-events',
    { config: { auth }, schema: { summary: "The partner's events, newest first, with their latest delivery; next_cursor continues", tags, querystring: EventsQuery, response: responses(EventPage) } },
    async (request, reply) => reply.success(200, 'Webhook events retrieved', await answering(() => listPartnerEvents(ctx, partnerOf(request), request.query))),
  );
  app.post(
    '/v1/partner/webhook-events/recover',
    { config: { auth }, schema: { summary: 'Replay every failed event created in [since, until] at a bounded rate; the count (one recover at a time: 409 while one runs; 429 past the waiting replays allowed)', tags, body: RecoverBody, response: responses(Recovered, 409, 429) } },
    async (request, reply) => reply.success(200, 'Failed webhook events recovered', await answering(() => recoverPartnerEvents(ctx, partnerOf(request), request.body))),
  );
  app.get(
    '/v1/partner/webhook-events/:event_id',
    { config: { auth }, schema: { summary: 'One event with every delivery and attempt', tags, params: EventParams, response: responses(EventDetail, 403, 404) } },
    async (request, reply) => reply.success(200, 'Webhook event retrieved', await answering(() => showPartnerEvent(ctx, partnerOf(request), request.params.event_id))),
  );
  app.post(
    '/v1/partner/webhook-events/:event_id/replay',
    { config: { auth }, schema: { summary: 'Deliver the event again (same event_id and body); 429 past the waiting replays allowed', tags, params: EventParams, response: responses(Replayed, 403, 404, 429) } },
    async (request, reply) => reply.success(200, 'Webhook event replayed', await answering(() => replayPartnerEvent(ctx, partnerOf(request), request.params.event_id))),
  );
  app.get('/v1/partner/event-types', { config: { auth }, schema: { summary: 'The event types an endpoint receives, each with the JSON Schema of its body', tags, response: responses(EventTypes) } }, async (request, reply) => {
    partnerOf(request);
    return reply.success(200, 'Event types retrieved', listEventTypes(ctx.eventTypes));
  });
}

export const partnerWebhookRoutes: RouteModule<WebhooksContext> = register;
