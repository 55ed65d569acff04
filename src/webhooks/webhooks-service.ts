// Webhooks: a change records its events with the unit of work it runs in (recordEvent); the
// outbox sink (webhook-outbox.ts) writes them in its transaction, each with its first delivery,
// and wakes the dispatchers once it has committed. This module makes the feature's context; the
// operations live beside it: endpoints and secrets (webhook-endpoints.ts), the dispatcher's
// steps (webhook-deliveries.ts), what operators see and replay (webhook-history.ts) and ping
// (webhook-ping.ts).
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { AuditTrail } from '../audit/index.ts';
import { isLoopbackHost, type Mode } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { UnitOfWork, Work } from '../platform/db/unit-of-work.ts';
import type { DeliveryWakeups, WakeChannel } from '../platform/delivery/index.ts';
import { NO_METRICS, type Metrics } from '../platform/metrics/metrics.ts';
import type { Deps } from '../deps.ts';
import { WEBHOOK_DELIVERY_RULES } from './webhook-delivery-rules.ts';
import { type AnnouncedEventType, createEventCatalogue, type EventCatalogue } from './webhook-event-types.ts';
import type { WebhookEventEnvelope } from './webhook-events.ts';
import { systemHostResolver, type HostResolver } from './webhook-host-resolution.ts';
import { webhookOutbox, type WebhookOutbox } from './webhook-outbox.ts';
import type { WebhooksStore } from './webhooks-store.ts';
import { postgresWebhooksStore } from './webhooks-store-postgres.ts';
import { sqliteWebhooksStore } from './webhooks-store-sqlite.ts';

/** A mistake in what the operator asked for (unknown partner, bad URL, ...); the CLI prints it as one line. */
export class WebhooksError extends Error {
  override name = 'WebhooksError';
}

/** Who changes an endpoint or replays: the operator (CLI, `admin.*` entries) or the partner itself (/v1/partner/). */
export type WebhookActor = 'operator' | 'partner';

/** The audit action of a webhook change made by `by`. */
export function webhookAction<A extends 'webhook_endpoint_set' | 'webhook_secret_rotate' | 'webhook_replay' | 'webhook_ping' | 'webhook_event_types_set'>(by: WebhookActor, action: A): `admin.${A}` | `partner.${A}` {
  return by === 'partner' ? `partner.${action}` : `admin.${action}`;
}

export interface WebhookSettings {
  /** Per attempt: the spec's 10 s unless configured (tests). */
  timeoutMs: number;
  /** Most deliveries in flight to one endpoint from this process, before any 429. */
  maxInFlightPerEndpoint: number;
  pollMs: number;
  /** How long a partner's change of its URL waits before deliveries follow it (ERX_ENDPOINT_CHANGE_DELAY_MINUTES). */
  endpointChangeDelayMs: number;
}

export interface WebhooksContext {
  db: DatabaseHandle;
  clock: Clock;
  secretKey: Buffer;
  logger: Logger;
  /** Production refuses non-https URLs. */
  mode: Mode;
  /**
   * The address guard (SSRF): on in production and whenever erx listens beyond loopback, sandbox
   * included (issue 38 item 6); off only for a sandbox on loopback, whose partner is its developer.
   */
  guardAddresses: boolean;
  settings: WebhookSettings;
  resolveHost: HostResolver;
  /** Its sinks include this context's outbox: what its operations record wakes its dispatchers. */
  unitOfWork: UnitOfWork;
  /** The dispatcher's claim and outcome writes, for the database in use. */
  store: WebhooksStore;
  wakeups: DeliveryWakeups;
  /** Where dispatchers LISTEN for other instances' wakes; undefined on SQLite. */
  notifications: WakeChannel | undefined;
  /** Attempts, their outcomes and latency, the endpoints' windows and the backlog. */
  metrics: Metrics;
  /** Traces on: a span per delivery attempt (webhook-attempt-span.ts). */
  tracer: Tracer | undefined;
  /** Where a ping (which changes nothing stored) is noted. */
  audit: AuditTrail;
  /** The event types an endpoint receives: the ones announced to createWebhooksContext, and the ping. */
  eventTypes: EventCatalogue;
}

export function createWebhooksContext(
  deps: Pick<Deps, 'database' | 'clock' | 'secretKey' | 'logger' | 'config' | 'metrics' | 'tracing'>,
  parts: {
    unitOfWork: UnitOfWork;
    outbox: WebhookOutbox;
    audit: AuditTrail;
    /** The events other features write (the prescription lifecycle's), for the catalogue. */
    events: ReadonlyArray<AnnouncedEventType>;
    resolveHost?: HostResolver | undefined;
  },
): WebhooksContext {
  const { config, database } = deps;
  return {
    db: database,
    clock: deps.clock,
    secretKey: deps.secretKey,
    logger: deps.logger,
    mode: config.mode,
    guardAddresses: config.mode === 'production' || !isLoopbackHost(config.host),
    settings: {
      timeoutMs: config.webhookTimeoutMs ?? WEBHOOK_DELIVERY_RULES.attemptTimeoutMs,
      maxInFlightPerEndpoint: config.webhookMaxInFlight,
      pollMs: config.webhookPollMs,
      endpointChangeDelayMs: config.endpointChangeDelayMinutes * 60_000,
    },
    resolveHost: parts.resolveHost ?? systemHostResolver,
    unitOfWork: parts.unitOfWork,
    store: database.kind === 'postgres' ? postgresWebhooksStore : sqliteWebhooksStore,
    wakeups: parts.outbox.wakeups,
    notifications: parts.outbox.notifications,
    metrics: deps.metrics ?? NO_METRICS,
    tracer: deps.tracing?.tracer,
    audit: parts.audit,
    eventTypes: createEventCatalogue(parts.events),
  };
}

/**
 * Records the event in the webhook outbox of the change running as `work`: it is written, with
 * its first delivery, in that change's transaction (both commit or roll back with the change, so
 * an event that exists is always on its way), and its partner's dispatchers are woken once the
 * transaction has committed.
 */
export function recordEvent(work: Work, event: WebhookEventEnvelope): void {
  work.record(webhookOutbox, { event });
}
