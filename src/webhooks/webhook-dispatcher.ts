// The dispatcher: runs inside `erx serve` and alone as `erx worker`, any number of them on one
// database. It learns of due deliveries from in-process wakes (after a unit of work that wrote its deliveries commits), PostgreSQL
// NOTIFY from other instances, timers for its own retries, and a poll (at most every second)
// that also finds other processes' work on SQLite and leases that expired with a dead process.
// For each endpoint with work it keeps a short queue of claimed deliveries (up to the window's
// size beyond those in flight), so a slot freed by an answer is used at once, without waiting
// for a claim to commit; the outcome is recorded behind it (bounded by MAX_UNRECORDED). Claims
// run one at a time.
import { decodeWakePayload, newRunnerId, RETRY_TIMER_SLACK_MS } from '../platform/delivery/index.ts';
import { listenToPostgresChannel, type PostgresListener } from '../platform/db/postgres-listener.ts';
import {
  claimEndpointDeliveries,
  findEndpointsWithDueDeliveries,
  hasLeaseForAttempt,
  openWebhookSender,
  recordAttemptOutcomes,
  releaseClaimedDeliveries,
  sendClaimedAttempt,
  type AnsweredDelivery,
  type ClaimedDelivery,
} from './webhook-deliveries.ts';
import { EndpointLane, type QueuedDelivery } from './webhook-endpoint-lane.ts';
import type { WebhooksContext } from './webhooks-service.ts';

export interface RunningDispatcher {
  /** Recorded as `sent_by` on every attempt this dispatcher makes. */
  readonly id: string;
  /**
   * Stops claiming, gives back what it claimed and has not started, and lets the attempts in
   * flight finish and record their outcome (each bounded by the timeout).
   */
  stop(): Promise<void>;
  /** Started and not stopped (what /readyz reports for a serving process). */
  isRunning(): boolean;
}

/**
 * Attempts started but not yet recorded, across endpoints. Past this no attempt starts until
 * recording catches up: when the database is slower than the receivers, answers must not pile
 * up in memory (each holds its delivery's lease meanwhile).
 */
const MAX_UNRECORDED = 512;
/**
 * Outcomes are recorded in batches, each batch in one transaction (on PostgreSQL one statement):
 * on SQLite a burst of answers then shares one COMMIT, whose fsync holds the whole process up,
 * and on PostgreSQL one round trip. A batch goes when it has this many, or this long (ms)
 * after its first.
 */
const RECORD_BATCH = 256;
const RECORD_BATCH_MS = 20;

export function startWebhookDispatcher(webhooks: WebhooksContext, options: { id?: string } = {}): RunningDispatcher {
  const dispatcher = new WebhookDispatcher(webhooks, options.id ?? newRunnerId());
  dispatcher.start();
  return { id: dispatcher.id, stop: () => dispatcher.stop(), isRunning: () => dispatcher.running };
}

class WebhookDispatcher {
  readonly #ctx: WebhooksContext;
  readonly #sender;
  readonly #lanes = new Map<string, EndpointLane>();
  /** Endpoints that may have due deliveries this dispatcher has not claimed yet. */
  readonly #wanted = new Set<string>();
  /** Attempts and lease releases under way, awaited by stop(). */
  readonly #running = new Set<Promise<void>>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #unrecorded = 0;
  #toRecord: AnsweredDelivery[] = [];
  #recordTimer: NodeJS.Timeout | undefined;
  #claiming: Promise<void> | undefined;
  #claimAgain = false;
  #discovering = false;
  #stopped = false;
  #poll: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #unwatchWindows: (() => void) | undefined;
  #listener: PostgresListener | undefined;

  constructor(
    ctx: WebhooksContext,
    readonly id: string,
  ) {
    this.#ctx = ctx;
    this.#sender = openWebhookSender(ctx);
  }

  get running(): boolean {
    return this.#poll !== undefined && !this.#stopped;
  }

  start(): void {
    this.#unsubscribe = this.#ctx.wakeups.onWake((partners) => this.#wake(partners));
    // Each endpoint's window as this dispatcher holds it, read when metrics are scraped (one series per endpoint).
    this.#unwatchWindows = this.#ctx.metrics.watchWebhookWindows(() =>
      [...this.#lanes].map(([partnerId, lane]) => ({ partnerId, inFlight: lane.window.inFlight, size: lane.window.size })),
    );
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
    this.#unwatchWindows?.();
    await this.#listener?.close();
    await this.#claiming;
    // Claimed but not started: given back at once, so another dispatcher need not wait out their leases.
    this.#release([...this.#lanes.values()].flatMap((lane) => lane.queued.splice(0).map((q) => q.delivery)));
    this.#recordQueued();
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
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

  /** Tops the endpoint's queue up. It stays wanted while a claim gets all it asked for (more may be due). */
  async #claimFor(partnerId: string): Promise<void> {
    const lane = this.#laneOf(partnerId);
    const limit = lane.toClaim;
    if (limit === 0) return; // the queue is full; it asks again as it empties
    this.#wanted.delete(partnerId);
    let batch;
    try {
      batch = await claimEndpointDeliveries(this.#ctx, partnerId, limit, this.id);
    } catch (error) {
      this.#ctx.logger.error({ err: error, partnerId }, 'webhook dispatcher: claim failed; the poll will try again');
      return;
    }
    if (batch.deliveries.length === limit) this.#wanted.add(partnerId);
    for (const delivery of batch.deliveries) lane.queued.push({ endpoint: batch.endpoint!, delivery });
    if (this.#stopped) this.#release(lane.queued.splice(0).map((q) => q.delivery));
    else this.#startQueued(partnerId, lane);
  }

  /** Starts queued deliveries while the window has room, then asks for more if the queue runs low. */
  #startQueued(partnerId: string, lane: EndpointLane): void {
    while (!this.#stopped && lane.window.room > 0 && lane.queued.length > 0 && this.#unrecorded < MAX_UNRECORDED) {
      const next = lane.queued.shift()!;
      if (hasLeaseForAttempt(this.#ctx, next.delivery)) this.#startAttempt(partnerId, lane, next);
      else this.#release([next.delivery]);
    }
    // A queue that ran dry is refilled at once; otherwise the claim waits for the next batch of outcomes.
    if (lane.queued.length === 0 && lane.shouldClaim && this.#wanted.has(partnerId)) this.#scheduleClaims();
  }

  #startAttempt(partnerId: string, lane: EndpointLane, { endpoint, delivery }: QueuedDelivery): void {
    lane.window.started(1);
    this.#unrecorded += 1;
    const started = performance.now();
    this.#track(
      sendClaimedAttempt(this.#ctx, this.#sender, endpoint, delivery).then((result) => {
        // The slot is free once the answer is in; the outcome is recorded behind it.
        lane.noteAnswerTime(performance.now() - started);
        lane.window.finished(result.outcome);
        this.#queueRecord({ delivery, result });
        this.#startQueued(partnerId, lane);
      }),
    );
  }

  #queueRecord(answered: AnsweredDelivery): void {
    this.#toRecord.push(answered);
    if (this.#toRecord.length >= RECORD_BATCH || this.#stopped) this.#recordQueued();
    else this.#recordTimer ??= setTimeout(() => this.#recordQueued(), RECORD_BATCH_MS);
  }

  #recordQueued(): void {
    clearTimeout(this.#recordTimer);
    this.#recordTimer = undefined;
    if ([...this.#lanes].some(([partnerId, lane]) => lane.shouldClaim && this.#wanted.has(partnerId))) this.#scheduleClaims();
    const batch = this.#toRecord.splice(0);
    if (batch.length === 0) return;
    this.#track(
      recordAttemptOutcomes(this.#ctx, batch, this.id)
        .then(
          (reports) => {
            for (const report of reports) if (report.retryAt) this.#wakeAt(report.delivery.partnerId, report.retryAt);
          },
          // Not written: the leases expire and the deliveries are claimed again.
          (error: unknown) =>
            this.#ctx.logger.error({ err: error, eventIds: batch.map((answered) => answered.delivery.eventId) }, 'webhook dispatcher: attempts could not be recorded'),
        )
        .finally(() => {
          const wasFull = this.#unrecorded >= MAX_UNRECORDED;
          this.#unrecorded -= batch.length;
          if (wasFull) for (const [id, waiting] of this.#lanes) this.#startQueued(id, waiting);
        }),
    );
  }

  #release(deliveries: ClaimedDelivery[]): void {
    if (deliveries.length === 0) return;
    this.#track(
      releaseClaimedDeliveries(this.#ctx, deliveries).catch((error: unknown) =>
        this.#ctx.logger.warn({ err: error }, 'webhook dispatcher: giving back unused claims failed; their leases will expire'),
      ),
    );
  }

  #track(work: Promise<void>): void {
    this.#running.add(work);
    void work.finally(() => this.#running.delete(work));
  }

  #wakeAt(partnerId: string, at: Date): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#wake([partnerId]);
    }, Math.max(0, at.getTime() - this.#ctx.clock.now().getTime()) + RETRY_TIMER_SLACK_MS);
    this.#timers.add(timer);
  }

  #laneOf(partnerId: string): EndpointLane {
    let lane = this.#lanes.get(partnerId);
    if (!lane) {
      lane = new EndpointLane(this.#ctx.settings.maxInFlightPerEndpoint);
      this.#lanes.set(partnerId, lane);
    }
    return lane;
  }
}
