// The catalogue of event types a partner's endpoint receives, each with the JSON Schema of its
// envelope: one source for GET /v1/partner/event-types and the OpenAPI document's `webhooks`.
// The prescription events are not listed here: the lifecycle table names them (and says what
// each tells a partner), and features.ts hands them to createWebhooksContext; the ping is this
// feature's own.
import { Type, type TObject } from '@sinclair/typebox';
import { type EventType, PING_EVENT_TYPE } from './webhook-events.ts';

const Metadata = Type.Object(
  {
    reserved_1: Type.Union([Type.String({ maxLength: 30 }), Type.Null()]),
    reserved_2: Type.Union([Type.String({ maxLength: 30 }), Type.Null()]),
    reserved_3: Type.Union([Type.String({ maxLength: 30 }), Type.Null()]),
  },
  { additionalProperties: false },
);

const PrescriptionData = Type.Object(
  { patient_id: Type.String(), partner_patient_id: Type.String(), user_id: Type.String(), scid: Type.String() },
  { additionalProperties: false },
);

function envelopeOf(eventType: string, organization: TObject['properties'][string], data: TObject['properties'][string]): TObject {
  return Type.Object(
    {
      event_type: Type.Literal(eventType),
      event_id: Type.String({ pattern: '^evt_[0-9a-f]{32}$' }),
      timestamp: Type.String({ format: 'date-time' }),
      partner_id: Type.String(),
      organization_id: organization,
      data,
      metadata: Metadata,
    },
    { additionalProperties: false, title: eventType },
  );
}

const prescriptionEvent = (type: string) => envelopeOf(type, Type.String({ format: 'uuid' }), PrescriptionData);

/** An event type another feature writes, with what it tells a partner. */
export interface AnnouncedEventType {
  eventType: EventType;
  description: string;
}

export type EventCatalogue = ReadonlyArray<{ event_type: string; description: string; schema: TObject }>;

/** The catalogue: the events announced (each a prescription event's envelope), then the ping. */
export function createEventCatalogue(announced: ReadonlyArray<AnnouncedEventType>): EventCatalogue {
  return [
    ...announced.map(({ eventType, description }) => ({ event_type: eventType, description, schema: prescriptionEvent(eventType) })),
    {
      event_type: PING_EVENT_TYPE,
      description: 'A test event sent by a ping; neither stored nor retried.',
      schema: envelopeOf(PING_EVENT_TYPE, Type.Null(), Type.Object({}, { additionalProperties: false })),
    },
  ];
}

/** The catalogue as GET /v1/partner/event-types answers it. */
export function listEventTypes(catalogue: EventCatalogue): Array<{ event_type: string; description: string; schema: Record<string, unknown> }> {
  return catalogue.map(({ event_type, description, schema }) => ({ event_type, description, schema: JSON.parse(JSON.stringify(schema)) as Record<string, unknown> }));
}

/** OpenAPI 3.1 `webhooks`: each event type as the POST erx sends, its body the catalogue's schema. */
export function describeWebhooksForOpenApi(catalogue: EventCatalogue): Record<string, unknown> {
  const signatureHeaders = ['X-Webhook-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
    name,
    in: 'header',
    required: name === 'X-Webhook-Signature',
    schema: { type: 'string' },
  }));
  return Object.fromEntries(
    listEventTypes(catalogue).map(({ event_type, description, schema }) => [
      event_type,
      {
        post: {
          summary: event_type,
          description: `${description} Signed with X-Webhook-Signature (t=...,v1=...) and, for a secret issued with Standard Webhooks, webhook-id, webhook-timestamp and webhook-signature.`,
          parameters: signatureHeaders,
          requestBody: { required: true, content: { 'application/json': { schema } } },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery; anything else is retried (3 attempts).' } },
        },
      },
    ]),
  );
}
