// The webhook tests' bed: a test app on a fresh database, and a webhooks context on real time
// (deliveries are due by the wall clock and retries wait real seconds), in sandbox or production
// mode, with a substitute DNS when a test needs names to resolve a certain way. Events are
// recorded the way the prescriptions service records them: recordEvent inside a transaction,
// then eventsCommitted.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { systemClock } from '../../src/platform/clock.ts';
import type { Mode } from '../../src/config.ts';
import {
  eventMetadata,
  newEventId,
  type WebhookEventEnvelope,
  startWebhookDispatcher,
  type RunningDispatcher,
  setWebhookEndpoint,
  type HostResolver,
  createWebhooksContext,
  eventsCommitted,
  recordEvent,
  type WebhooksContext,
} from '../../src/webhooks/index.ts';
import { givenIntegration, type GivenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';

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
    return createWebhooksContext({ ...t.deps, config, clock: systemClock }, { resolveHost: o.resolveHost ?? options.resolveHost });
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

/** Records events in one transaction, as a service does with its change, then wakes the dispatchers. */
export async function recordEvents(webhooks: WebhooksContext, events: WebhookEventEnvelope[]): Promise<WebhookEventEnvelope[]> {
  await webhooks.db.transaction().execute(async (trx) => {
    for (const event of events) await recordEvent(webhooks, trx, event);
  });
  eventsCommitted(webhooks);
  return events;
}

export async function recordEventFor(webhooks: WebhooksContext, g: Pick<GivenIntegration, 'partnerId' | 'organizationId' | 'userId'>, type?: string): Promise<WebhookEventEnvelope> {
  const [event] = await recordEvents(webhooks, [prescriptionEvent(g, type)]);
  return event!;
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
