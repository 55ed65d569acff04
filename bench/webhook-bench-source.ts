// Where the webhook bench's events come from: the webhooks service, as the prescriptions
// service calls it (recordEvent in the change's unit of work, which wakes after the commit). Once the
// sandbox test helpers exist, an event source that creates prescriptions through them can
// take this one's place: the bench only needs recordOne.
import { randomUUID } from 'node:crypto';
import type { Features } from '../src/features.ts';
import { createOrganization, createPartner, enablePartnerForOrganization } from '../src/onboarding/index.ts';
import { eventMetadata, newEventId, recordEvent } from '../src/webhooks/index.ts';
import { type WebhookEventEnvelope } from '../src/webhooks/webhook-events.ts';

export interface BenchEventSource {
  partnerId: string;
  /** The partner's webhook secret, for the bare loop's signatures. */
  secret: string;
  /** Records one event in a transaction of its own; resolves once committed, with when that was (wall-clock ms). */
  recordOne(): Promise<{ eventId: string; committedAt: number }>;
  /** Writes `count` events in large transactions; their wakes reach nobody (the dispatcher starts afterwards). */
  preload(count: number): Promise<void>;
  /** A body exactly as the service would store and send it. */
  sampleBody(): string;
}

export const wallNow = () => performance.timeOrigin + performance.now();

/** A partner whose endpoint is `url`, an organization, and events of theirs recorded through the webhooks service. */
export async function createServiceEventSource(features: Features, url: string): Promise<BenchEventSource> {
  const partner = await createPartner(features.onboarding, { partnerId: `bench-${Date.now().toString(36)}`, webhookUrl: url });
  const organization = await createOrganization(features.onboarding, { name: 'Bench Clinic' });
  // Only an organization that enables the partner has its events delivered to it.
  await enablePartnerForOrganization(features.onboarding, { organizationId: organization.organization_id, partnerId: partner.partner_id });
  const userId = randomUUID();
  const envelope = (): WebhookEventEnvelope => ({
    event_type: 'prescription.created',
    event_id: newEventId(),
    timestamp: new Date().toISOString(),
    partner_id: partner.partner_id,
    organization_id: organization.organization_id,
    data: { patient_id: randomUUID(), partner_patient_id: `P-${randomUUID().slice(0, 8)}`, user_id: userId, scid: '2TM1XVXBJRWXH8NM68' },
    metadata: eventMetadata({ reserved_1: 'bench' }),
  });
  const { webhooks } = features;
  return {
    partnerId: partner.partner_id,
    secret: partner.webhook_secret!,
    async recordOne() {
      const event = envelope();
      await webhooks.unitOfWork.run(async (work) => recordEvent(work, event));
      const committedAt = wallNow();
      return { eventId: event.event_id, committedAt };
    },
    async preload(count) {
      for (let written = 0; written < count; written += 500) {
        const batch = Array.from({ length: Math.min(500, count - written) }, envelope);
        await webhooks.unitOfWork.run(async (work) => {
          for (const event of batch) recordEvent(work, event);
        });
      }
    },
    sampleBody: () => JSON.stringify(envelope()),
  };
}
