// `erx serve` and ERX_METRICS_PORT, as an operator starts it: with the setting, a listener of its
// own answers GET /metrics and the API's port does not; without it, nothing listens; a bad value
// stops the start with one line.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { acceptsConnections, scrapeMetrics } from '../platform/metrics-scrape.ts';
import { freePort } from '../own-servers.ts';
import { createCliEnvironment, ERX_BIN, expectOneLineRefusal, runErx, spawnServer, type CliEnvironment } from './cli-helpers.ts';

const environments: CliEnvironment[] = [];
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
  await Promise.all(environments.map((e) => e.cleanup()));
});

function newEnvironment(extra: Record<string, string> = {}): CliEnvironment {
  const environment = createCliEnvironment(extra);
  environments.push(environment);
  return environment;
}

describe('erx serve with ERX_METRICS_PORT', () => {
  it('serves /metrics on that port only, bound to HOST, and says where', async () => {
    const port = await freePort();
    const serving = await spawnServer(newEnvironment({ ERX_METRICS_PORT: String(port) }).env);
    children.push(serving.child);
    expect(serving.output()).toContain(`erx metrics on http://127.0.0.1:${port}/metrics`);
    const health = await fetch(`${serving.url}/health`);
    expect(health.status).toBe(200);
    expect((await fetch(`${serving.url}/metrics`)).status).toBe(404);
    const scrape = await scrapeMetrics(`http://127.0.0.1:${port}`);
    expect(scrape.value('http_server_request_duration_seconds_count', { http_request_method: 'GET', http_route: '/health', http_response_status_code: '200' })).toBe(1);
    expect(scrape.value('erx_webhook_deliveries_pending')).toBe(0);
  });

  it('opens no metrics listener when ERX_METRICS_PORT is unset', async () => {
    const port = await freePort();
    const serving = await spawnServer(newEnvironment().env);
    children.push(serving.child);
    expect(serving.output()).not.toContain('erx metrics on');
    expect((await fetch(`${serving.url}/metrics`)).status).toBe(404);
    expect(await acceptsConnections(port)).toBe(false);
  });

  it('gives `erx worker` a listener of its own too, with the webhook metrics and no HTTP ones', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [ERX_BIN, 'worker'], { env: { ...newEnvironment({ ERX_METRICS_PORT: String(port) }).env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`erx worker did not start:\n${output}`)), 30_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(`erx metrics on http://127.0.0.1:${port}/metrics`)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
    });
    const scrape = await scrapeMetrics(`http://127.0.0.1:${port}`);
    expect(scrape.value('erx_webhook_deliveries_pending')).toBe(0);
    expect(scrape.seriesCount('http_server_request_duration_seconds_count')).toBe(0);
  });

  it.each([
    ['abc', /ERX_METRICS_PORT must be a whole number from 1 to 65535, got "abc"/],
    ['70000', /ERX_METRICS_PORT must be a whole number from 1 to 65535/],
    ['3000', /ERX_METRICS_PORT must differ from PORT \(3000\)/],
  ])('refuses to start with ERX_METRICS_PORT=%s', async (value, message) => {
    const result = await runErx({ ...newEnvironment().env, PORT: '3000', ERX_METRICS_PORT: value }, ['serve']);
    expectOneLineRefusal(result, message);
  });
});
