// The webhook tests' bed: a test app on a fresh database, and a webhooks context on real time
// (deliveries are due by the wall clock and retries wait real seconds), in sandbox or production
// mode, with a substitute DNS when a test needs names to resolve a certain way. Events are
// recorded the way the prescriptions service records them: recordEvent in a unit of work.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { systemClock } from '../../src/platform/clock.ts';
import type { Mode } from '../../src/config.ts';
import { createUnitOfWork } from '../../src/platform/db/unit-of-work.ts';
import {
  eventMetadata,
  newEventId,
  type WebhookEventEnvelope,
  startWebhookDispatcher,
  type RunningDispatcher,
  setWebhookEndpoint,
  type HostResolver,
  createWebhookOutbox,
  createWebhooksContext,
  recordEvent,
  type WebhooksContext,
} from '../../src/webhooks/index.ts';
import { PRESCRIPTION_EVENTS } from '../../src/prescriptions/index.ts';
import { givenIntegration, type GivenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import type { DatabaseHandle } from '../../src/platform/db/database.ts';
import type { Receiver } from './webhook-receivers.ts';

export interface WebhooksBed {
  t: TestApp;
  webhooks: WebhooksContext;
  /** Dispatchers started through the bed; stopped by close(). */
  startDispatcher(webhooks?: WebhooksContext): RunningDispatcher;
  /** Another context on the same database: another mode, resolver or settings. */
  contextWith(options: { mode?: Mode; resolveHost?: HostResolver; env?: Record<string, string> }): WebhooksContext;
  close(): Promise<void>;
}

export interface BedOptions {
  /** Settings (ERX_WEBHOOK_*): the attempt timeout defaults to 1 s here unless given. */
  env?: Record<string, string>;
  mode?: Mode;
  resolveHost?: HostResolver;
}

export async function createWebhooksBed(options: BedOptions = {}): Promise<WebhooksBed> {
  const t = await createTestApp({ env: { ERX_WEBHOOK_TIMEOUT_MS: '1000', ...options.env } });
  const contextWith = (o: { mode?: Mode; resolveHost?: HostResolver; env?: Record<string, string> }) => {
    const config = { ...t.deps.config, mode: o.mode ?? options.mode ?? 'sandbox' };
    if (o.env?.ERX_WEBHOOK_TIMEOUT_MS !== undefined) config.webhookTimeoutMs = o.env.ERX_WEBHOOK_TIMEOUT_MS === '' ? undefined : Number(o.env.ERX_WEBHOOK_TIMEOUT_MS);
    if (o.env?.ERX_WEBHOOK_MAX_IN_FLIGHT) config.webhookMaxInFlight = Number(o.env.ERX_WEBHOOK_MAX_IN_FLIGHT);
    const deps = { ...t.deps, config, clock: systemClock };
    // Its own outbox and unit of work: what is recorded through this context wakes its dispatchers.
    const outbox = createWebhookOutbox(deps);
    const unitOfWork = createUnitOfWork(deps.database, [outbox, t.features.audit], deps.logger);
    return createWebhooksContext(deps, { unitOfWork, outbox, audit: t.features.audit, events: PRESCRIPTION_EVENTS, resolveHost: o.resolveHost ?? options.resolveHost });
  };
  const webhooks = contextWith({});
  const dispatchers: RunningDispatcher[] = [];
  return {
    t,
    webhooks,
    contextWith,
    startDispatcher(context = webhooks) {
      const dispatcher = startWebhookDispatcher(context);
      dispatchers.push(dispatcher);
      return dispatcher;
    },
    async close() {
      await Promise.all(dispatchers.map((d) => d.stop()));
      await t.close();
    },
  };
}

export interface GivenEndpoint extends GivenIntegration {
  secret: string;
  url: string;
}

/** A partner enabled for a validated organization, with its endpoint registered at `url`. */
export async function givenEndpoint(bed: WebhooksBed, url: string, webhooks = bed.webhooks): Promise<GivenEndpoint> {
  const g = await givenIntegration(bed.t);
  await sql`update organization_partners set validated_at = ${new Date().toISOString()} where partner_id = ${g.partnerId}`.execute(bed.t.deps.database);
  const set = await setWebhookEndpoint(webhooks, g.partnerId, url);
  return { ...g, secret: set.webhook_secret!, url: set.webhook_url };
}

/** A prescription event of the integration's partner and organization, acted on by its prescriber. */
export function prescriptionEvent(g: Pick<GivenIntegration, 'partnerId' | 'organizationId' | 'userId'>, type = 'prescription.created'): WebhookEventEnvelope {
  return {
    event_type: type,
    event_id: newEventId(),
    timestamp: new Date().toISOString(),
    partner_id: g.partnerId,
    organization_id: g.organizationId,
    data: { patient_id: randomUUID(), partner_patient_id: `pp-${randomUUID().slice(0, 8)}`, user_id: g.userId, scid: '2TM1XVXBJRWXH8NM68' },
    metadata: eventMetadata({ reserved_1: 'from-sso' }),
  };
}

/** Records events in one unit of work, as a service does with its change; its commit wakes the dispatchers. */
export async function recordEvents(webhooks: WebhooksContext, events: WebhookEventEnvelope[]): Promise<WebhookEventEnvelope[]> {
  await webhooks.unitOfWork.run(async (work) => {
    for (const event of events) recordEvent(work, event);
  });
  return events;
}

export async function recordEventFor(webhooks: WebhooksContext, g: Pick<GivenIntegration, 'partnerId' | 'organizationId' | 'userId'>, type?: string): Promise<WebhookEventEnvelope> {
  const [event] = await recordEvents(webhooks, [prescriptionEvent(g, type)]);
  return event!;
}

/**
 * Waits until a dispatcher on `database` has polled for due deliveries since the call, so that a
 * test can say what it did not send: a due delivery for `witness`'s partner (its endpoint at
 * `receiver`) goes straight into the outbox, waking nobody, and only a poll can find it.
 */
export async function waitForAPoll(database: DatabaseHandle, witness: Pick<GivenIntegration, 'partnerId' | 'organizationId' | 'userId'>, receiver: Receiver): Promise<void> {
  const event = prescriptionEvent(witness);
  const now = new Date().toISOString();
  await database.transaction().execute(async (trx) => {
    await trx.insertInto('webhook_events').values({ id: event.event_id, event_type: event.event_type, partner_id: witness.partnerId, organization_id: witness.organizationId, body: JSON.stringify(event), created_at: now }).execute();
    await trx.insertInto('webhook_deliveries').values({ id: randomUUID(), event_id: event.event_id, partner_id: witness.partnerId, reason: 'event', requested_by: null, status: 'pending', next_attempt_at: now, created_at: now }).execute();
  });
  await eventually(async () => receiver.requests.some((r) => r.eventId === event.event_id), (arrived) => arrived);
}

/** Polls `read` until `done` holds (every 25 ms), failing after `timeoutMs`. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
