// How many deliveries one process keeps in flight to one endpoint: at most the configured
// maximum; a 429 halves the window (the spec's way for a receiver to slow us down, DESIGN
// decision 14) and each success widens it by one again, so a partner answering 429 really is
// sent less, and one that recovers gets back to full speed within a few answers.
import type { OutcomeClass } from './webhook-delivery-rules.ts';

export class EndpointWindow {
  #size: number;
  #inFlight = 0;

  constructor(readonly max: number) {
    this.#size = max;
  }

  get size(): number {
    return this.#size;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** How many more deliveries may start now. */
  get room(): number {
    return Math.max(0, this.#size - this.#inFlight);
  }

  started(count: number): void {
    this.#inFlight += count;
  }

  /** One delivery's attempt ended with `outcome` (undefined: it ended without one, e.g. a database error). */
  finished(outcome: OutcomeClass | undefined): void {
    this.#inFlight -= 1;
    if (outcome === 'http_429') this.#size = Math.max(1, Math.floor(this.#size / 2));
    else if (outcome === 'success') this.#size = Math.min(this.max, this.#size + 1);
  }
}
