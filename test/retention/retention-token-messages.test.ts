// Token delivery's retention step: a message finished (sent, failed or kept) more than
// ERX_RETENTION_TOKEN_MESSAGE_DAYS (30) ago loses its destination (sealed; the row holds no token
// link since migration 0070); the row stays, so the list still says what happened. A message
// finished just inside the period, and any message still pending however old, keep it. A dry run counts and blanks
// nothing; the setting moves the boundary.
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { decryptSecret, encryptSecret } from '../../src/platform/secrets.ts';
import { pruneExpiredRecords } from '../../src/retention/index.ts';
import { listTokenMessages } from '../../src/token-delivery/index.ts';
import { givenIntegration } from '../given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';

const DAY = 86_400_000;
let t: TestApp;
afterEach(() => t?.close());

async function givenMessages(env: Record<string, string> = {}) {
  t = await createTestApp({ env });
  const g = await givenIntegration(t);
  const ago = (ms: number) => new Date(t.clock.now().getTime() - ms).toISOString();
  const rowOf = (id: string, status: 'sent' | 'failed' | 'kept' | 'pending', finishedAgoMs: number | null, createdAgoMs: number) => ({
        id,
        prescription_id: randomUUID(),
        organization_id: g.organizationId,
        channel: 'SMS',
        destination_encrypted: encryptSecret('0412345678', t.deps.secretKey),
        prescriber_name: 'Dr A',
        status,
        next_attempt_at: ago(createdAgoMs),
        created_at: ago(createdAgoMs),
        completed_at: finishedAgoMs === null ? null : ago(finishedAgoMs),
  });
  const insert = async (status: 'sent' | 'failed' | 'kept' | 'pending', finishedAgoMs: number | null, createdAgoMs = 60 * DAY, count = 1) => {
    const ids = Array.from({ length: count }, () => randomUUID());
    for (let start = 0; start < count; start += 200) {
      await t.deps.database.insertInto('token_messages').values(ids.slice(start, start + 200).map((id) => rowOf(id, status, finishedAgoMs, createdAgoMs))).execute();
    }
    return ids[0]!;
  };
  const read = async (id: string) => {
    const row = await t.deps.database.selectFrom('token_messages').select(['destination_encrypted', 'status', 'completed_at']).where('id', '=', id).executeTakeFirstOrThrow();
    return { ...row, destination: row.destination_encrypted === '' ? '' : decryptSecret(row.destination_encrypted, t.deps.secretKey) };
  };
  return { insert, read };
}

describe('token message destinations', () => {
  it('blanks the destination of messages finished just over 30 days ago, keeps those just under, and never touches a pending one', async () => {
    const { insert, read } = await givenMessages();
    const sent = await insert('sent', 30 * DAY + 1000);
    const failed = await insert('failed', 31 * DAY);
    const kept = await insert('kept', 45 * DAY);
    const recent = await insert('sent', 30 * DAY - 1000);
    const pending = await insert('pending', null, 400 * DAY);
    const report = await pruneExpiredRecords(t.features.retention);
    expect(report.counts.token_message_destinations).toBe(3);
    expect(report.steps.find((step) => step.step === 'token_message_destinations')).toMatchObject({ setting: 'ERX_RETENTION_TOKEN_MESSAGE_DAYS', counts: { token_message_destinations: 3 } });
    for (const id of [sent, failed, kept]) expect(await read(id)).toMatchObject({ destination_encrypted: '' });
    expect((await read(sent)).status).toBe('sent');
    for (const id of [recent, pending]) expect(await read(id)).toMatchObject({ destination: '0412345678' });
    // The row stays in the list, with nothing of the destination left to show.
    const listed = (await listTokenMessages(t.features.tokenDelivery, { status: 'failed' })).find((m) => m.id === failed);
    expect(listed).toMatchObject({ status: 'failed', destination: '***' });
    // A second run finds nothing more to blank.
    expect((await pruneExpiredRecords(t.features.retention)).counts.token_message_destinations).toBe(0);
  });

  it('counts in a dry run and blanks nothing', async () => {
    const { insert, read } = await givenMessages();
    const old = await insert('sent', 40 * DAY);
    const dry = await pruneExpiredRecords(t.features.retention, { dryRun: true });
    expect(dry.counts.token_message_destinations).toBe(1);
    expect((await read(old)).destination).toBe('0412345678');
  });

  it('follows ERX_RETENTION_TOKEN_MESSAGE_DAYS', async () => {
    const { insert, read } = await givenMessages({ ERX_RETENTION_TOKEN_MESSAGE_DAYS: '7' });
    const eightDays = await insert('sent', 8 * DAY);
    const sixDays = await insert('sent', 6 * DAY);
    await pruneExpiredRecords(t.features.retention);
    expect((await read(eightDays)).destination).toBe('');
    expect((await read(sixDays)).destination).toBe('0412345678');
  });

  it('blanks a backlog in batches of at most 1,000', async () => {
    const { insert } = await givenMessages();
    await insert('sent', 40 * DAY, 60 * DAY, 1_200);
    const batches: number[] = [];
    await pruneExpiredRecords(t.features.retention, { onBatch: ({ step, rows }) => step === 'token_message_destinations' && batches.push(rows.token_message_destinations!) });
    expect(batches).toEqual([1_000, 200]);
  });
});
