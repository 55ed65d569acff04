// The dispatcher: runs inside `erx serve` and alone as `erx worker`, any number of them on one
// database. It learns of due deliveries from in-process wakes (eventsCommitted), PostgreSQL
// NOTIFY from other instances, timers for its own retries, and a poll (at most every second)
// that also finds other processes' work on SQLite and leases that expired with a dead process.
// For each endpoint with work it claims as many deliveries as that endpoint's window has room
// for, starts their attempts, and claims again as they finish. Claims run one at a time.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { listenToPostgresChannel, type PostgresListener } from '../platform/db/postgres-listener.ts';
import { attemptClaimedDelivery, claimEndpointDeliveries, findEndpointsWithDueDeliveries, openWebhookSender, type ClaimedDelivery, type DeliveryEndpoint } from './webhook-deliveries.ts';
import { EndpointWindow } from './webhook-endpoint-window.ts';
import { decodeWakePayload } from './webhook-wakeups.ts';
import type { WebhooksContext } from './webhooks-service.ts';

export interface RunningDispatcher {
  /** Recorded as `sent_by` on every attempt this dispatcher makes. */
  readonly id: string;
  /** Stops claiming, lets the attempts in flight finish and record their outcome (each bounded by the timeout). */
  stop(): Promise<void>;
}

/** setTimeout may fire within the millisecond the retry is due; one more keeps the claim from finding it not yet due. */
const RETRY_TIMER_SLACK_MS = 2;

export function startWebhookDispatcher(webhooks: WebhooksContext, options: { id?: string } = {}): RunningDispatcher {
  const dispatcher = new WebhookDispatcher(webhooks, options.id ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`);
  dispatcher.start();
  return { id: dispatcher.id, stop: () => dispatcher.stop() };
}

class WebhookDispatcher {
  readonly #ctx: WebhooksContext;
  readonly #sender;
  readonly #windows = new Map<string, EndpointWindow>();
  /** Endpoints that may have due deliveries this dispatcher has not claimed yet. */
  readonly #wanted = new Set<string>();
  readonly #attempts = new Set<Promise<void>>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #claiming: Promise<void> | undefined;
  #claimAgain = false;
  #discovering = false;
  #stopped = false;
  #poll: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #listener: PostgresListener | undefined;

  constructor(
    ctx: WebhooksContext,
    readonly id: string,
  ) {
    this.#ctx = ctx;
    this.#sender = openWebhookSender(ctx);
  }

  start(): void {
    this.#unsubscribe = this.#ctx.wakeups.onWake((partners) => this.#wake(partners));
    const notifications = this.#ctx.notifications;
    if (notifications) {
      this.#listener = listenToPostgresChannel({
        ...notifications,
        onNotification: (payload) => {
          const partners = decodeWakePayload(payload);
          if (partners === 'all') this.#discover();
          else this.#wake(partners);
        },
        onListening: () => this.#discover(),
        onError: (error) => this.#ctx.logger.warn({ err: error }, 'webhook dispatcher: LISTEN connection failed; polling meanwhile'),
      });
    }
    this.#poll = setInterval(() => this.#discover(), this.#ctx.settings.pollMs);
    this.#discover();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#poll);
    for (const timer of this.#timers) clearTimeout(timer);
    this.#unsubscribe?.();
    await this.#listener?.close();
    await this.#claiming;
    await Promise.allSettled([...this.#attempts]);
    await this.#sender.close();
  }

  #wake(partners: readonly string[]): void {
    for (const partner of partners) this.#wanted.add(partner);
    this.#scheduleClaims();
  }

  #discover(): void {
    if (this.#stopped || this.#discovering) return;
    this.#discovering = true;
    findEndpointsWithDueDeliveries(this.#ctx)
      .then(
        (partners) => this.#wake(partners),
        (error: unknown) => this.#ctx.logger.error({ err: error }, 'webhook dispatcher: looking for due deliveries failed'),
      )
      .finally(() => {
        this.#discovering = false;
      });
  }

  #scheduleClaims(): void {
    if (this.#stopped) return;
    if (this.#claiming) {
      this.#claimAgain = true;
      return;
    }
    this.#claiming = this.#claimWhileWanted().finally(() => {
      this.#claiming = undefined;
    });
  }

  async #claimWhileWanted(): Promise<void> {
    do {
      this.#claimAgain = false;
      for (const partnerId of [...this.#wanted]) {
        if (this.#stopped) return;
        await this.#claimFor(partnerId);
      }
    } while (this.#claimAgain && !this.#stopped);
  }

  /** Claims what the endpoint's window has room for. It stays wanted while a claim fills the room (more may be due). */
  async #claimFor(partnerId: string): Promise<void> {
    const window = this.#windowOf(partnerId);
    const room = window.room;
    if (room === 0) return; // a finishing attempt claims again
    this.#wanted.delete(partnerId);
    let batch;
    try {
      batch = await claimEndpointDeliveries(this.#ctx, partnerId, room, this.id);
    } catch (error) {
      this.#ctx.logger.error({ err: error, partnerId }, 'webhook dispatcher: claim failed; the poll will try again');
      return;
    }
    if (batch.deliveries.length === room) this.#wanted.add(partnerId);
    window.started(batch.deliveries.length);
    for (const delivery of batch.deliveries) this.#startAttempt(batch.endpoint!, delivery, window);
  }

  #startAttempt(endpoint: DeliveryEndpoint, delivery: ClaimedDelivery, window: EndpointWindow): void {
    const attempt = attemptClaimedDelivery(this.#ctx, this.#sender, endpoint, delivery, this.id)
      .then(
        (report) => {
          window.finished(report.outcome);
          if (report.retryAt) this.#wakeAt(delivery.partnerId, report.retryAt);
        },
        (error: unknown) => {
          // The outcome could not be written: the lease expires and the delivery is claimed again.
          window.finished(undefined);
          this.#ctx.logger.error({ err: error, eventId: delivery.eventId, partnerId: delivery.partnerId }, 'webhook dispatcher: recording an attempt failed');
        },
      )
      .finally(() => {
        this.#attempts.delete(attempt);
        if (this.#wanted.has(delivery.partnerId)) this.#scheduleClaims();
      });
    this.#attempts.add(attempt);
  }

  #wakeAt(partnerId: string, at: Date): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#wake([partnerId]);
    }, Math.max(0, at.getTime() - this.#ctx.clock.now().getTime()) + RETRY_TIMER_SLACK_MS);
    this.#timers.add(timer);
  }

  #windowOf(partnerId: string): EndpointWindow {
    let window = this.#windows.get(partnerId);
    if (!window) {
      window = new EndpointWindow(this.#ctx.settings.maxInFlightPerEndpoint);
      this.#windows.set(partnerId, window);
    }
    return window;
  }
}
