// Fixed-window request counters per (partner, organization). In memory for one instance;
// in Redis when several instances must share one budget.
import { Redis } from 'ioredis';
import type { Awaitable } from '../awaitable.ts';
import type { Clock } from '../clock.ts';

export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the window resets (for Retry-After). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one request; the in-memory limiter decides at once, Redis after a round trip. */
  hit(key: string): Awaitable<RateLimitDecision>;
  close(): Promise<void>;
}

export interface RateLimitSettings {
  max: number;
  windowSeconds: number;
}

const ALWAYS_ALLOWED: RateLimitDecision = { allowed: true, retryAfterSeconds: 0 };

export const unlimitedRateLimiter: RateLimiter = { hit: () => ALWAYS_ALLOWED, close: async () => {} };

export function createMemoryRateLimiter(settings: RateLimitSettings, clock: Clock): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const windowMs = settings.windowSeconds * 1000;
  return {
    hit(key) {
      const now = clock.now().getTime();
      let window = windows.get(key);
      if (!window || window.resetAt <= now) {
        // Drop expired windows now and then so the map stays as small as the active keys.
        if (windows.size > 10_000) for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k);
        window = { count: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      if (window.count <= settings.max) return ALWAYS_ALLOWED;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.resetAt - now) / 1000)) };
    },
    close: async () => windows.clear(),
  };
}

// INCR and set the expiry on the first hit, atomically; returns [count, ms left].
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

export interface RedisRateLimiterOptions extends RateLimitSettings {
  url: string;
  keyPrefix?: string;
  /** Called when Redis cannot be reached; the request is then allowed (fail open). */
  onError?: (error: Error) => void;
}

export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const redis = new Redis(options.url, { maxRetriesPerRequest: 1, connectTimeout: 2000 });
  redis.on('error', (error) => options.onError?.(error));
  const windowMs = String(options.windowSeconds * 1000);
  const prefix = options.keyPrefix ?? 'erx:rl:';
  return {
    async hit(key) {
      try {
        const [count, ttl] = (await redis.eval(HIT_SCRIPT, 1, prefix + key, windowMs)) as [number, number];
        if (count <= options.max) return ALWAYS_ALLOWED;
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
      } catch (error) {
        options.onError?.(error as Error);
        return ALWAYS_ALLOWED;
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
