// Audit entries of reads ride the same group commit as changes on SQLite: while one group's
// fsync runs, a change (its entry in its transaction) and the entries of reads noted meanwhile
// join the next group, which one COMMIT and one fsync make durable; neither is acknowledged
// before that fsync has returned.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { auditRecords, createAuditTrail } from '../../src/audit/index.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { createUnitOfWork } from '../../src/platform/db/unit-of-work.ts';

const opened: Array<{ database: DatabaseHandle; dir: string }> = [];
afterEach(async () => {
  for (const { database, dir } of opened.splice(0)) {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('audit entries of reads and the group commit', () => {
  it('join the group of the changes made meanwhile: one COMMIT, one fsync, nothing acknowledged before it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-audit-group-'));
    const log: string[] = [];
    const held: Array<() => void> = [];
    let holding = false;
    const aroundSync = (sync: () => Promise<void>) => (holding ? new Promise<void>((resolve) => held.push(resolve)).then(sync) : sync());
    const database = await openDatabase({ sqliteFile: path.join(dir, 'erx.sqlite'), sqliteGroupCommit: { aroundSync, onStatement: (text) => log.push(text) } });
    opened.push({ database, dir });
    await migrateToLatest(database);
    const audit = createAuditTrail({ database, clock: systemClock, secretKey: Buffer.alloc(32, 1) });
    const unitOfWork = createUnitOfWork(database, [audit], pino({ level: 'silent' }));
    const change = (id: string) =>
      unitOfWork.run(async ({ trx, record }) => {
        await trx.insertInto('partners').values({ id, name: id, secret_hash: 'x', created_at: systemClock.now().toISOString() }).execute();
        record(auditRecords, { action: 'admin.partner_create', detail: { partnerId: id } });
      });
    await turns(2);
    holding = true;
    // A first group, whose fsync the test holds back.
    const first = change('first');
    await turns(3);
    expect(held).toHaveLength(1);
    log.length = 0;
    let acknowledged = 0;
    const behind = [change('second'), audit.noteAccess({ action: 'patient.read', detail: { partnerId: 'read-1' } }), audit.noteAccess({ action: 'patient.read', detail: { partnerId: 'read-2' } })];
    for (const unit of behind) void unit.then(() => (acknowledged += 1));
    await turns(5);
    expect(acknowledged).toBe(0);
    expect(log.filter((text) => text === 'commit')).toEqual([]);
    held.shift()!();
    await first;
    await turns(5);
    // The change and both reads' entries: one group, one COMMIT, its fsync held.
    expect(log.filter((text) => text === 'commit')).toEqual(['commit']);
    expect(log.filter((text) => text === 'begin immediate')).toEqual(['begin immediate']);
    expect(held).toHaveLength(1);
    expect(acknowledged).toBe(0);
    held.shift()!();
    await Promise.all(behind);
    const entries = await database.selectFrom('audit_entries').select(['action', 'partner_id']).where('partner_id', 'in', ['second', 'read-1', 'read-2']).orderBy('seq').execute();
    expect(entries).toEqual([
      { action: 'admin.partner_create', partner_id: 'second' },
      { action: 'patient.read', partner_id: 'read-1' },
      { action: 'patient.read', partner_id: 'read-2' },
    ]);
  });
});
