// `erx prune [--dry-run] [--json]` on the configured database: counts per kind, a dry run that
// deletes nothing, and `erx webhooks replay` of a pruned event answering that it was pruned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, sqliteFileIn, type DatabaseHandle } from '../../src/platform/db/database.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson } from '../cli/cli-helpers.ts';
import { countRows, insertIdempotencyKeys, insertWebhookHistory } from './retention-given.ts';

const DAY = 86_400_000;
const cli = createCliEnvironment();
let db: DatabaseHandle;
let oldEvents: string[];
beforeAll(async () => {
  const seed = await runErxJson(cli.env, ['sandbox', 'seed']);
  db = await openDatabase({ databaseUrl: cli.env.DATABASE_URL, databaseSchema: cli.env.ERX_DATABASE_SCHEMA, sqliteFile: sqliteFileIn(cli.env.ERX_DATA_DIR!) });
  const owner = { partnerId: seed.partner_id, organizationId: seed.organization_id };
  oldEvents = await insertWebhookHistory(db, 3, { ...owner, createdAt: new Date(Date.now() - 100 * DAY), attemptsPerDelivery: 2 });
  await insertWebhookHistory(db, 2, { ...owner, createdAt: new Date(Date.now() - DAY) });
  await insertIdempotencyKeys(db, 4, owner, new Date(Date.now() - 60_000));
  // MFA ceremony challenges (one expired, one live) and wrong codes (one past any lockout, one recent).
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
  await db.insertInto('mfa_challenges').values([
    { session_hash: 'expired-session', purpose: 'totp', challenge: 'c', expires_at: ago(60_000) },
    { session_hash: 'live-session', purpose: 'totp', challenge: 'c', expires_at: ago(-60_000) },
  ]).execute();
  await db.insertInto('mfa_failures').values([
    { id: 'old-failure', organization_id: owner.organizationId, user_id: seed.prescriber.user_id, failed_at: ago(DAY) },
    { id: 'recent-failure', organization_id: owner.organizationId, user_id: seed.prescriber.user_id, failed_at: ago(60_000) },
  ]).execute();
}, 60_000);
afterAll(async () => {
  await db?.close();
  await cli.cleanup();
});

describe('erx prune', () => {
  it('counts with --dry-run and deletes nothing, then prunes the same counts, printed per kind', async () => {
    const dry = await runErxJson(cli.env, ['prune', '--dry-run']);
    expect(dry).toMatchObject({ dry_run: true, counts: { webhook_events: 3, webhook_deliveries: 3, webhook_attempts: 6, idempotency_keys: 4, mfa_challenges: 1, mfa_failures: 1 } });
    expect([await countRows(db, 'webhook_events'), await countRows(db, 'idempotency_keys')]).toEqual([5, 4]);

    const real = await runErxJson(cli.env, ['prune']);
    expect(real).toMatchObject({ dry_run: false, counts: dry.counts, interrupted: false });
    // Reported per step, in the order the features registered them.
    expect(real.steps.map((step: { step: string }) => step.step)).toEqual(['webhook_history', 'webhook_response_bodies', 'idempotency_keys', 'sso_tokens', 'portal_sessions', 'portal_form_ids', 'token_message_destinations', 'mfa_challenges', 'mfa_failures', 'security_alerts', 'rtpm_checks']);
    expect(real.steps[0]).toMatchObject({ setting: 'ERX_RETENTION_WEBHOOK_DAYS', counts: { webhook_events: 3, webhook_deliveries: 3, webhook_attempts: 6 }, batches: 1 });
    expect([await countRows(db, 'webhook_events'), await countRows(db, 'webhook_attempts'), await countRows(db, 'idempotency_keys')]).toEqual([2, 2, 0]);
    expect(await db.selectFrom('mfa_challenges').select('session_hash').execute()).toEqual([{ session_hash: 'live-session' }]);
    expect(await db.selectFrom('mfa_failures').select('id').execute()).toEqual([{ id: 'recent-failure' }]);

    const text = await runErx(cli.env, ['prune']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^webhook_events\s+0$/m);
    expect(text.stdout).toMatch(/^webhook_history\s+pruned up to \d{4}-\d\d-\d\dT\S+ \(ERX_RETENTION_WEBHOOK_DAYS\), 1 batch$/m);
    expect(text.stdout).toMatch(/^token_message_destinations\s+pruned up to \d{4}-\d\d-\d\dT\S+ \(ERX_RETENTION_TOKEN_MESSAGE_DAYS\), 1 batch$/m);
  }, 60_000);

  it('makes `erx webhooks replay` of a pruned event say it was pruned', async () => {
    const result = await runErx(cli.env, ['webhooks', 'replay', oldEvents[0]!]);
    expectOneLineRefusal(result, new RegExp(`^erx: event pruned by retention \\(older than the webhook history kept\\): ${oldEvents[0]}; nothing was replayed$`));
  }, 30_000);

  it.each([
    [{ ERX_RETENTION_WEBHOOK_DAYS: '0' }, [], /^erx: ERX_RETENTION_WEBHOOK_DAYS must be a whole number from 1 to 36500, got "0"$/],
    [{ ERX_RETENTION_BODIES_DAYS: 'a month' }, [], /^erx: ERX_RETENTION_BODIES_DAYS must be a whole number from 1 to 36500, got "a month"$/],
    [{}, ['--older-than', '3'], /^erx: unknown option '--older-than'$/],
  ])('refuses bad settings and options (%j %j) before touching anything', async (env, args, message) => {
    expectOneLineRefusal(await runErx({ ...cli.env, ...env }, ['prune', ...args]), message);
  }, 30_000);
});
