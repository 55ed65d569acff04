// One endpoint as a dispatcher sees it: its window of deliveries in flight, and a short queue
// of claimed deliveries waiting for a slot, deeper for an endpoint that answers fast.
import type { ClaimedDelivery, DeliveryEndpoint } from './webhook-deliveries.ts';
import { EndpointWindow } from './webhook-endpoint-window.ts';

export interface QueuedDelivery {
  endpoint: DeliveryEndpoint;
  delivery: ClaimedDelivery;
}

/**
 * An endpoint that answers within this (ms, on average) gets a queue sixteen windows deep: a
 * claim waits for its transaction's COMMIT, and while it does a fast endpoint empties a queue
 * only one window deep, so deliveries would wait on claims; and each claim costs a statement
 * and (on SQLite) a share of a COMMIT, fewer for more rows. A slower endpoint keeps one window
 * queued, so a queued delivery waits at most about one attempt (its lease allows for that).
 */
const FAST_ANSWER_MS = 50;
const FAST_QUEUE_WINDOWS = 16;
/** Most deliveries one claim leases (BENCHMARKS.md, "Webhook delivery": batches of 256). */
const MAX_CLAIM = 256;

/** One endpoint as this dispatcher sees it: its window, and the deliveries it claimed that wait for a slot. */
export class EndpointLane {
  readonly window: EndpointWindow;
  readonly queued: QueuedDelivery[] = [];
  /** Moving average of how long its answers take, in ms. */
  #answerMs = FAST_ANSWER_MS * 2;

  constructor(maxInFlight: number) {
    this.window = new EndpointWindow(maxInFlight);
  }

  noteAnswerTime(ms: number): void {
    this.#answerMs += (ms - this.#answerMs) / 8;
  }

  /** How many deliveries may wait in the queue: several windows for a fast endpoint, one for a slow one. */
  get #queueCapacity(): number {
    return (this.#answerMs <= FAST_ANSWER_MS ? FAST_QUEUE_WINDOWS : 1) * this.window.size;
  }

  /** How many more to claim: enough to fill every free slot and the queue, at most MAX_CLAIM. */
  get toClaim(): number {
    return Math.min(MAX_CLAIM, Math.max(0, this.window.size + this.#queueCapacity - this.window.inFlight - this.queued.length));
  }

  /**
   * Whether to claim now rather than let the queue run lower: each claim is a transaction of
   * its own, and on SQLite a COMMIT, so while the queue lasts it waits until half of it can be
   * refilled at once.
   */
  get shouldClaim(): boolean {
    return this.toClaim > 0 && (this.queued.length === 0 || this.toClaim >= this.#queueCapacity / 2);
  }
}
