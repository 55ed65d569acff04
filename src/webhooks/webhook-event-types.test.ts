// The catalogue lists what it is handed (the lifecycle's events, in features.ts) and the ping,
// so a new lifecycle row reaches GET /v1/partner/event-types and the OpenAPI document unlisted here.
import { describe, expect, it } from 'vitest';
import { createEventCatalogue, describeWebhooksForOpenApi, listEventTypes } from './webhook-event-types.ts';

describe('the event catalogue', () => {
  it('lists each announced event with its envelope schema, then the ping', () => {
    const catalogue = createEventCatalogue([{ eventType: 'prescription.planted', description: 'A planted row.' }]);
    const listed = listEventTypes(catalogue);
    expect(listed.map(({ event_type, description }) => [event_type, description])).toEqual([
      ['prescription.planted', 'A planted row.'],
      ['webhook.ping', 'A test event sent by a ping; neither stored nor retried.'],
    ]);
    const schema = listed[0]!.schema as { title: string; properties: { event_type: { const: string }; data: { required: string[] } } };
    expect(schema.title).toBe('prescription.planted');
    expect(schema.properties.event_type.const).toBe('prescription.planted');
    expect(schema.properties.data.required).toEqual(['patient_id', 'partner_patient_id', 'user_id', 'scid']);
    expect(Object.keys(describeWebhooksForOpenApi(catalogue))).toEqual(['prescription.planted', 'webhook.ping']);
  });

  it('holds only the ping when nothing is announced', () => {
    expect(listEventTypes(createEventCatalogue([])).map((entry) => entry.event_type)).toEqual(['webhook.ping']);
  });
});
