// Fixed-window request counters. In memory for one instance; in Redis when several instances
// must share one budget. A limiter has a default rule (the per (partner, organization)
// budget); callers may count other keys against other rules (credential failures per
// address, the portal's public routes per address), each in a key namespace of its own.
// Both kinds cost the same whatever the number of keys: the memory one holds at most
// `maxKeys` counters (two rotating generations), Redis lets each key expire with its window
// and never scans.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Awaitable } from '../awaitable.ts';
import type { Clock } from '../clock.ts';

export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the window resets (for Retry-After). */
  retryAfterSeconds: number;
}

/** `max` hits allowed per key in each window of `windowSeconds`. */
export interface RateLimitRule {
  max: number;
  windowSeconds: number;
}

export interface RateLimiter {
  /** Counts one hit of `key` against `rule` (default: the limiter's own); memory decides at once, Redis after a round trip. */
  hit(key: string, rule?: RateLimitRule): Awaitable<RateLimitDecision>;
  /** Whether `key` has already spent `rule` in its current window, without counting. */
  peek(key: string, rule: RateLimitRule): Awaitable<RateLimitDecision>;
  close(): Promise<void>;
  /** Resolves when the store the counters are shared through (Redis) answers; absent when they live in this process. */
  ping?(): Promise<void>;
}

export type RateLimitSettings = RateLimitRule;

const ALWAYS_ALLOWED: RateLimitDecision = { allowed: true, retryAfterSeconds: 0 };

export const unlimitedRateLimiter: RateLimiter = { hit: () => ALWAYS_ALLOWED, peek: () => ALWAYS_ALLOWED, close: async () => {} };

/** Keys past this length are kept as a SHA-256 digest, so a key costs the same memory whatever a caller sends. */
const LONGEST_PLAIN_KEY = 128;

function storedKey(key: string): string {
  return key.length <= LONGEST_PLAIN_KEY ? key : `#${createHash('sha256').update(key).digest('base64url')}`;
}

function decide(count: number, max: number, msLeft: number): RateLimitDecision {
  if (count <= max) return ALWAYS_ALLOWED;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)) };
}

/**
 * Counters one process can hold whatever it is sent: at most 50,000 keys of at most 128
 * characters, about 15 MB. They live in two generations: when the current one holds half the
 * cap, it becomes the previous one and the old previous one is dropped whole. A key hit again
 * moves to the current generation, so a key survives at least half the cap of newer keys;
 * under a flood of distinct keys a quiet key may lose its count (the limit fails open, never
 * shut). Every operation is a lookup or two, never a scan: evicting one entry at a time from
 * the front of a Map walks the holes earlier deletions left (~120 µs an insert at 50,000 keys).
 */
export const DEFAULT_MEMORY_LIMITER_KEYS = 50_000;

export interface MemoryRateLimiter extends RateLimiter {
  /** How many counters are held now (at most maxKeys). */
  readonly size: number;
}

interface MemoryWindow {
  count: number;
  resetAt: number;
}

export function createMemoryRateLimiter(settings: RateLimitSettings, clock: Clock, maxKeys = DEFAULT_MEMORY_LIMITER_KEYS): MemoryRateLimiter {
  const generationSize = Math.max(1, Math.floor(maxKeys / 2));
  let current = new Map<string, MemoryWindow>();
  let previous = new Map<string, MemoryWindow>();
  const store = (key: string, window: MemoryWindow) => {
    if (!current.has(key) && current.size >= generationSize) {
      previous = current;
      current = new Map();
    }
    current.set(key, window);
  };
  /** The key's live window, moved to the current generation. */
  const find = (key: string, now: number): MemoryWindow | undefined => {
    let window = current.get(key);
    if (window === undefined) {
      window = previous.get(key);
      if (window === undefined) return undefined;
      previous.delete(key);
      store(key, window);
    }
    return window.resetAt > now ? window : undefined;
  };
  return {
    hit(key, rule = settings) {
      const now = clock.now().getTime();
      const stored = storedKey(key);
      let window = find(stored, now);
      if (!window) {
        window = { count: 0, resetAt: now + rule.windowSeconds * 1000 };
        store(stored, window);
      }
      window.count += 1;
      return decide(window.count, rule.max, window.resetAt - now);
    },
    peek(key, rule) {
      const now = clock.now().getTime();
      const stored = storedKey(key);
      const window = current.get(stored) ?? previous.get(stored);
      return window && window.resetAt > now ? decide(window.count + 1, rule.max, window.resetAt - now) : ALWAYS_ALLOWED;
    },
    get size() {
      return current.size + previous.size;
    },
    close: async () => {
      current.clear();
      previous.clear();
    },
  };
}

// INCR and set the expiry on the first hit, atomically; returns [count, ms left].
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

// The count and ms left of a key, without counting ({0, 0} when it has no window).
const PEEK_SCRIPT = `
local count = redis.call('GET', KEYS[1])
if not count then return {0, 0} end
return {tonumber(count), redis.call('PTTL', KEYS[1])}`;

export interface RedisRateLimiterOptions extends RateLimitSettings {
  url: string;
  keyPrefix?: string;
  /** Called when Redis cannot be reached; the request is then allowed (fail open). */
  onError?: (error: Error) => void;
}

export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const redis = new Redis(options.url, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
  redis.on('error', (error) => options.onError?.(error));
  const prefix = options.keyPrefix ?? 'erx:rl:';
  const run = async (script: string, key: string, args: string[], max: number, extra: number): Promise<RateLimitDecision> => {
    try {
      const [count, ttl] = (await redis.eval(script, 1, prefix + storedKey(key), ...args)) as [number, number];
      return decide(count + extra, max, ttl);
    } catch (error) {
      options.onError?.(error as Error);
      return ALWAYS_ALLOWED;
    }
  };
  return {
    hit: (key, rule = options) => run(HIT_SCRIPT, key, [String(rule.windowSeconds * 1000)], rule.max, 0),
    peek: (key, rule) => run(PEEK_SCRIPT, key, [], rule.max, 1),
    async close() {
      redis.disconnect();
    },
    async ping() {
      await redis.ping();
    },
  };
}
