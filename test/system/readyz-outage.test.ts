// /readyz against a PostgreSQL and a Redis of the test's own (test/own-servers.ts), over a real
// socket: it names the lost dependency within 2 s of the server being killed or frozen, and
// answers 200 again once it is back, without restarting the app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-app.ts';
import { shouldRunOwnServer, startOwnPostgres, startOwnRedis, type OwnServer } from '../own-servers.ts';
import { createRedisRateLimiter } from '../../src/platform/http/rate-limiter.ts';

/** The bound the brief sets between losing a dependency and /readyz saying so. */
const NOTICE_WITHIN_MS = 2000;

interface Probe {
  status: number;
  body: { status: string; checks: Record<string, string> };
  ms: number;
}

async function probe(url: string): Promise<Probe> {
  const started = performance.now();
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as Probe['body'], ms: performance.now() - started };
}

/** Probes until `wanted` holds (a fresh app's first connections may outlast a check's 1 s on a loaded machine) or `deadlineMs` passes; returns the matching probe, how long it took, and the slowest probe. */
async function probeUntil(url: string, wanted: (p: Probe) => boolean, deadlineMs: number) {
  const started = performance.now();
  let slowest = 0;
  for (;;) {
    const answer = await probe(url);
    slowest = Math.max(slowest, answer.ms);
    const elapsed = performance.now() - started;
    if (wanted(answer)) return { answer, elapsed, slowest };
    if (elapsed > deadlineMs) throw new Error(`/readyz did not turn as expected within ${deadlineMs} ms; last: ${JSON.stringify(answer)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const failing = (check: string) => (p: Probe) => p.status === 503 && p.body.checks[check] === 'failing';
const ready = (p: Probe) => p.status === 200 && p.body.status === 'ready';

async function listen(app: TestApp): Promise<string> {
  return app.app.listen({ port: 0, host: '127.0.0.1' });
}

describe.runIf(shouldRunOwnServer('postgres'))('/readyz while its own PostgreSQL is lost and back', () => {
  let postgres: OwnServer;
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    app = await createTestApp({ databaseUrl: postgres.url });
    url = await listen(app);
  }, 60_000);
  afterAll(async () => {
    await app?.close().catch(() => {});
    await postgres?.remove();
  });

  it('names the database within 2 s of the server being killed, and answers 200 again once it is back', async () => {
    expect((await probeUntil(url, ready, 10_000)).answer.body).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
    await postgres.stop();
    const lost = await probeUntil(url, failing('database'), 10_000);
    console.info(`PostgreSQL killed: /readyz 503 after ${lost.elapsed.toFixed(0)} ms (slowest probe ${lost.slowest.toFixed(0)} ms)`);
    expect(lost.elapsed).toBeLessThanOrEqual(NOTICE_WITHIN_MS);
    expect(lost.answer.body.status).toBe('unready');
    expect(JSON.stringify(lost.answer.body)).not.toMatch(/127\.0\.0\.1|postgres:|ECONNREFUSED|stack/i);
    await postgres.start();
    const back = await probeUntil(url, ready, 15_000);
    console.info(`PostgreSQL back: /readyz 200 after ${back.elapsed.toFixed(0)} ms`);
  }, 60_000);

  it('names the database within 2 s of the server freezing (connections open, no answer), each probe answering within 2 s', async () => {
    await probeUntil(url, ready, 10_000);
    postgres.pause();
    try {
      const lost = await probeUntil(url, failing('database'), 10_000);
      console.info(`PostgreSQL frozen: /readyz 503 after ${lost.elapsed.toFixed(0)} ms (slowest probe ${lost.slowest.toFixed(0)} ms)`);
      expect(lost.elapsed).toBeLessThanOrEqual(NOTICE_WITHIN_MS);
      // Hung checks are joined, not piled up: further probes answer within the bound too.
      for (let i = 0; i < 3; i += 1) {
        const again = await probe(url);
        expect(again.status).toBe(503);
        expect(again.ms).toBeLessThanOrEqual(NOTICE_WITHIN_MS);
      }
    } finally {
      postgres.resume();
    }
    await probeUntil(url, ready, 15_000);
  }, 60_000);
});

describe.runIf(shouldRunOwnServer('redis'))('/readyz while its own Redis (the shared rate-limit counters) is lost and back', () => {
  let redis: OwnServer;
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    redis = await startOwnRedis();
    app = await createTestApp({ rateLimiter: createRedisRateLimiter({ url: redis.url, max: 100, windowSeconds: 60 }) });
    url = await listen(app);
  }, 60_000);
  afterAll(async () => {
    await app?.close().catch(() => {});
    await app?.deps.rateLimiter.close();
    await redis?.remove();
  });

  it('names redis within 2 s of the server being killed, and answers 200 again once it is back', async () => {
    expect((await probeUntil(url, ready, 10_000)).answer.body).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', redis: 'ok' } });
    await redis.stop();
    const lost = await probeUntil(url, failing('redis'), 10_000);
    console.info(`Redis killed: /readyz 503 after ${lost.elapsed.toFixed(0)} ms (slowest probe ${lost.slowest.toFixed(0)} ms)`);
    expect(lost.elapsed).toBeLessThanOrEqual(NOTICE_WITHIN_MS);
    expect(lost.answer.body.checks.database).toBe('ok');
    expect(JSON.stringify(lost.answer.body)).not.toMatch(/127\.0\.0\.1|redis:|ECONNREFUSED|stack/i);
    await redis.start();
    const back = await probeUntil(url, ready, 15_000);
    console.info(`Redis back: /readyz 200 after ${back.elapsed.toFixed(0)} ms`);
  }, 60_000);

  it('names redis within 2 s of the server freezing, each probe answering within 2 s', async () => {
    await probeUntil(url, ready, 10_000);
    redis.pause();
    try {
      const lost = await probeUntil(url, failing('redis'), 10_000);
      console.info(`Redis frozen: /readyz 503 after ${lost.elapsed.toFixed(0)} ms (slowest probe ${lost.slowest.toFixed(0)} ms)`);
      expect(lost.elapsed).toBeLessThanOrEqual(NOTICE_WITHIN_MS);
      expect(lost.slowest).toBeLessThanOrEqual(NOTICE_WITHIN_MS);
    } finally {
      redis.resume();
    }
    await probeUntil(url, ready, 15_000);
  }, 60_000);
});
