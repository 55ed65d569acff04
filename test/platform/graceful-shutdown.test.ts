import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { buildFeatures } from '../../src/features.ts';
import { loadConfig } from '../../src/config.ts';
import { assembleDeps } from '../../src/runtime.ts';
import { startServer } from '../../src/server.ts';
import { createCliEnvironment, spawnServer, type CliEnvironment } from '../cli/cli-helpers.ts';

const environments: CliEnvironment[] = [];
afterAll(async () => {
  await Promise.all(environments.map((e) => e.cleanup()));
});

function newEnvironment(): CliEnvironment {
  const environment = createCliEnvironment();
  environments.push(environment);
  return environment;
}

describe('graceful shutdown', () => {
  it('stops accepting, finishes the request in flight, then closes the database', async () => {
    const deps = await assembleDeps(loadConfig({ ...newEnvironment().env, PORT: '0' }));
    let release!: () => void;
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = await startServer(deps, buildFeatures(deps), async (d, f) => {
      const app = await buildApp(d, f);
      app.get('/slow', { config: { auth: { kind: 'public' } } }, async () => {
        arrived();
        await gate;
        return { finished: true };
      });
      return app;
    });
    const slow = fetch(`${server.url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await inFlight;
    const stopped = server.stop();
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
    release();
    expect(await slow).toEqual({ status: 200, body: { finished: true } });
    await stopped;
    await expect(sql`select 1`.execute(deps.database)).rejects.toThrow();
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('exits 0 on %s when run as `erx serve`', async (signal) => {
    const { child, url } = await spawnServer(newEnvironment().env);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    expect(await exited).toBe(0);
  });
});
