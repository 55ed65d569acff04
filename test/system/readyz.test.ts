// /livez and /readyz on the run's database (SQLite or PostgreSQL): what each check reports, that
// a failure names its check and nothing else, and that the answer comes back once it recovers.
// Losing a real PostgreSQL or Redis is in readyz-outage.test.ts.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../given.ts';
import { createTestApp } from '../test-app.ts';
import { watchDispatcher } from '../../src/system/index.ts';
import { startWebhookDispatcher } from '../../src/webhooks/index.ts';

const { t } = useTestApp({});

const readyz = async (app = t.app) => {
  const response = await app.inject({ method: 'GET', url: '/readyz' });
  return { status: response.statusCode, body: response.json(), text: response.body };
};

/** /readyz once it answers 200, or its last answer after 10 s. */
async function readyzOnceReady(app = t.app) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await readyz(app);
    if (answer.status === 200 || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('/livez', () => {
  it('answers 200 without asking any dependency, even with the database closed', async () => {
    const broken = await createTestApp();
    try {
      await broken.deps.database.close();
      const response = await broken.app.inject({ method: 'GET', url: '/livez' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: 'ok' });
    } finally {
      await broken.app.close();
    }
  });
});

describe('/readyz', () => {
  it('answers 200 with each check by name while everything answers', async () => {
    expect(await readyz()).toMatchObject({ status: 200, body: { status: 'ready', checks: { database: 'ok', migrations: 'ok' } } });
  });

  it('has no Redis check when counters live in the process, and no dispatcher check when the process runs none', async () => {
    expect(Object.keys((await readyz()).body.checks).sort()).toEqual(['database', 'migrations']);
  });

  it('needs no credentials and refuses other methods', async () => {
    const withJunk = await t.app.inject({ method: 'GET', url: '/readyz', headers: { authorization: 'Bearer junk' } });
    expect(withJunk.statusCode).toBe(200);
    const post = await t.app.inject({ method: 'POST', url: '/readyz', payload: {} });
    expect(post.statusCode).toBe(404);
  });

  it('answers 503 naming migrations when one this build knows is not applied, and 200 once it is', async () => {
    const row = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration where name = '0012-custom-drug-counts'`.execute(t.deps.database);
    expect(row.rows).toHaveLength(1);
    await sql`delete from kysely_migration where name = '0012-custom-drug-counts'`.execute(t.deps.database);
    try {
      expect(await readyz()).toMatchObject({ status: 503, body: { status: 'unready', checks: { database: 'ok', migrations: 'failing' } } });
    } finally {
      const { name, timestamp } = row.rows[0]!;
      await sql`insert into kysely_migration (name, timestamp) values (${name}, ${timestamp})`.execute(t.deps.database);
    }
    expect((await readyz()).status).toBe(200);
  });

  it('answers 503 naming the database once it is gone, with check names and statuses only (the cause goes to the log)', async () => {
    const broken = await createTestApp();
    try {
      await broken.deps.database.close();
      const { status, body, text } = await readyz(broken.app);
      expect(status).toBe(503);
      expect(body).toEqual({ status: 'unready', checks: { database: 'failing', migrations: 'failing' } });
      expect(text).not.toMatch(/sqlite|postgres|stack|error|driver|destroy/i);
      expect(broken.logs.some((line) => line.includes('readiness check failing') && line.includes('"check":"database"'))).toBe(true);
    } finally {
      await broken.app.close();
    }
  });

  it('checks the webhook dispatcher a serving process runs: ok while it runs, 503 naming it once it stops', async () => {
    const app = await createTestApp();
    try {
      const dispatcher = startWebhookDispatcher(app.features.webhooks);
      watchDispatcher(app.features.system, dispatcher);
      // A fresh app's first connections may take longer than a check's 1 s on a loaded machine.
      expect(await readyzOnceReady(app.app)).toMatchObject({ status: 200, body: { checks: { dispatcher: 'ok' } } });
      await dispatcher.stop();
      expect(await readyz(app.app)).toMatchObject({ status: 503, body: { status: 'unready', checks: { dispatcher: 'failing' } } });
    } finally {
      await app.close();
    }
  });

  it('leaves /health and /ready as they were', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).json()).toEqual({ status: 'ready' });
  });
});
