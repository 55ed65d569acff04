// The wake-up after commit: how a runner hears of new jobs before its poll. A job's outbox sink,
// once the unit of work that wrote its records has committed, names the keys of what it wrote
// (partners for webhooks, channels for token messages), and exactly those are woken: this
// process's runners directly and, when a broadcast is given (PostgreSQL NOTIFY), every other
// instance's. A poll stays the safety net: a wake can be missed, a job never is.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/database.ts';

export type WakeListener = (keys: readonly string[]) => void;

/** Sends the keys of a wake to other instances. */
export type WakeBroadcast = (keys: readonly string[]) => Promise<void>;

/** More keys than this in one NOTIFY and it says "all" instead (its payload is capped at 8000 bytes). */
export const MAX_KEYS_PER_NOTIFY = 64;
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

  /** After a commit that wrote jobs of these keys: wakes this process's runners, then tells the other instances. */
  committed(keys: readonly string[]): void {
    if (keys.length === 0) return;
    this.wakeLocally(keys);
    if (this.#broadcast) this.#queueBroadcast(keys);
  }

  wakeLocally(keys: readonly string[]): void {
    for (const listener of this.#listeners) listener(keys);
  }

  /** Subscribes a runner; returns its unsubscribe. */
  onWake(listener: WakeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** One NOTIFY at a time; wakes that come meanwhile share the next one. */
  #queueBroadcast(keys: readonly string[]): void {
    for (const key of keys) this.#queued.add(key);
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

/** The NOTIFY payload for a wake: the keys, or WAKE_ALL when they would not fit. */
export function encodeWakePayload(keys: readonly string[]): string {
  return keys.length > MAX_KEYS_PER_NOTIFY ? WAKE_ALL : keys.join(',');
}

/** The keys a NOTIFY names, or 'all'. */
export function decodeWakePayload(payload: string): string[] | 'all' {
  if (payload === WAKE_ALL || payload === '') return 'all';
  return payload.split(',').filter(Boolean);
}

/** Where runners LISTEN for other instances' wakes of one kind of job. */
export interface WakeChannel {
  url: string;
  channel: string;
}

/**
 * The wake channel of one kind of job (`prefix`, e.g. `erx_webhooks`) on PostgreSQL: one per
 * schema, so instances of another deployment in the same database stay asleep; undefined on
 * SQLite (no other instance to tell).
 */
export function wakeChannelOf(database: DatabaseHandle, databaseUrl: string | undefined, schema: string | undefined, prefix: string): WakeChannel | undefined {
  if (!databaseUrl || database.kind !== 'postgres') return undefined;
  const name = schema ?? 'public';
  const channel = `${prefix}_${name}`;
  // A channel name is an identifier: at most 63 bytes.
  return { url: databaseUrl, channel: channel.length <= 63 ? channel : `${prefix}_${createHash('sha256').update(name).digest('hex').slice(0, 40)}` };
}

/** The wake-ups of one kind of job: broadcast through its channel's NOTIFY when there is one. */
export function createDeliveryWakeups(database: DatabaseHandle, channel: WakeChannel | undefined, onError: (error: unknown) => void): DeliveryWakeups {
  const broadcast = channel
    ? async (keys: readonly string[]) => {
        await sql`select pg_notify(${channel.channel}, ${encodeWakePayload(keys)})`.execute(database);
      }
    : undefined;
  return new DeliveryWakeups(broadcast, onError);
}
