// How a dispatcher hears of new deliveries before its poll: the outbox sink (webhook-outbox.ts),
// after a unit of work has committed, names the partners of the records that transaction
// wrote, and exactly those are woken: this process's dispatchers directly and (on PostgreSQL)
// every other instance's through a NOTIFY.

export type WakeListener = (partnerIds: readonly string[]) => void;

/** Sends the partners of a wake to other instances (PostgreSQL NOTIFY). */
export type WakeBroadcast = (partnerIds: readonly string[]) => Promise<void>;

/** More partners than this in one NOTIFY and it says "all" instead (its payload is capped at 8000 bytes). */
export const MAX_PARTNERS_PER_NOTIFY = 64;
export const WAKE_ALL = '*';

export class DeliveryWakeups {
  readonly #listeners = new Set<WakeListener>();
  readonly #broadcast: WakeBroadcast | undefined;
  readonly #onError: (error: unknown) => void;
  #broadcasting: Promise<void> | undefined;
  #queued = new Set<string>();

  constructor(broadcast: WakeBroadcast | undefined, onError: (error: unknown) => void) {
    this.#broadcast = broadcast;
    this.#onError = onError;
  }

  /** After a commit that wrote deliveries of these partners: wakes this process's dispatchers, then tells the other instances. */
  committed(partners: readonly string[]): void {
    if (partners.length === 0) return;
    this.wakeLocally(partners);
    if (this.#broadcast) this.#queueBroadcast(partners);
  }

  wakeLocally(partnerIds: readonly string[]): void {
    for (const listener of this.#listeners) listener(partnerIds);
  }

  /** Subscribes a dispatcher; returns its unsubscribe. */
  onWake(listener: WakeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** One NOTIFY at a time; wakes that come meanwhile share the next one. */
  #queueBroadcast(partners: readonly string[]): void {
    for (const partner of partners) this.#queued.add(partner);
    if (this.#broadcasting) return;
    this.#broadcasting = (async () => {
      while (this.#queued.size > 0) {
        const batch = [...this.#queued];
        this.#queued = new Set();
        await this.#broadcast!(batch).catch(this.#onError);
      }
      this.#broadcasting = undefined;
    })();
  }
}

/** The NOTIFY payload for a wake: the partner ids, or WAKE_ALL when they would not fit. */
export function encodeWakePayload(partnerIds: readonly string[]): string {
  return partnerIds.length > MAX_PARTNERS_PER_NOTIFY ? WAKE_ALL : partnerIds.join(',');
}

/** The partners a NOTIFY names, or 'all'. */
export function decodeWakePayload(payload: string): string[] | 'all' {
  if (payload === WAKE_ALL || payload === '') return 'all';
  return payload.split(',').filter(Boolean);
}
