// How a dispatcher hears of new deliveries before its poll: recordEvent notes the event's
// partner, and the service's eventsCommitted, called after the commit, wakes this process's
// dispatcher for those partners and (on PostgreSQL) sends a NOTIFY to every other instance's.
//
// Transactions run concurrently, and eventsCommitted does not say which one committed, so a
// wake names every partner noted in the last moment (RECENT_MS), not only the ones noted since
// the previous wake: a transaction that committed after another one's wake still wakes its own
// partner. A transaction longer than that is found by the poll.

export type WakeListener = (partnerIds: readonly string[]) => void;

/** Sends the partners of a wake to other instances (PostgreSQL NOTIFY). */
export type WakeBroadcast = (partnerIds: readonly string[]) => Promise<void>;

const RECENT_MS = 250;
/** More partners than this in one NOTIFY and it says "all" instead (its payload is capped at 8000 bytes). */
export const MAX_PARTNERS_PER_NOTIFY = 64;
export const WAKE_ALL = '*';

export class DeliveryWakeups {
  readonly #listeners = new Set<WakeListener>();
  /** Partner id → when an event of theirs was last recorded (ms, performance clock). */
  readonly #noted = new Map<string, number>();
  readonly #broadcast: WakeBroadcast | undefined;
  readonly #onError: (error: unknown) => void;
  #broadcasting: Promise<void> | undefined;
  #queued = new Set<string>();

  constructor(broadcast: WakeBroadcast | undefined, onError: (error: unknown) => void) {
    this.#broadcast = broadcast;
    this.#onError = onError;
  }

  noteRecorded(partnerId: string): void {
    this.#noted.delete(partnerId); // re-inserted last: the map stays ordered by time
    this.#noted.set(partnerId, performance.now());
  }

  /** After a commit: wakes this process's dispatchers, then tells the other instances. */
  committed(): void {
    const partners = this.#recentPartners();
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

  #recentPartners(): string[] {
    const horizon = performance.now() - RECENT_MS;
    for (const [partnerId, at] of this.#noted) {
      if (at >= horizon) break;
      this.#noted.delete(partnerId);
    }
    return [...this.#noted.keys()];
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
