// A restore rolls the audit trail back to the backup's head (issue 38 item 2): the attack was
// that it did so without a trace. Now the restored chain gains an admin.database_restore entry
// naming the head it replaced and the head it put back, chained under the secret key, and the
// chain verifies. In-process on the embedded database (restore works on SQLite only).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuditTrail, verifyAuditChain } from '../../src/audit/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { openDatabase, sqliteFileIn } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { backupDatabase, restoreDatabase } from '../../src/system/index.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-restore-audit-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const secretKey = randomBytes(32);
const clock = new ManualClock();

/** Appends `count` patient.read entries to the database in `dataDir`; returns its chain head. */
async function noteReads(dataDir: string, count: number): Promise<{ seq: number; hash: string }> {
  const database = await openDatabase({ sqliteFile: sqliteFileIn(dataDir) });
  try {
    await migrateToLatest(database);
    const trail = createAuditTrail({ database, clock, secretKey });
    for (let n = 0; n < count; n += 1) await trail.noteAccess({ action: 'patient.read', organizationId: 'org-1', patientId: `p-${n}` });
    const row = await database.selectFrom('audit_chain').selectAll().executeTakeFirstOrThrow();
    return { seq: Number(row.last_seq), hash: row.last_hash };
  } finally {
    await database.close();
  }
}

describe('erx restore and the audit trail', () => {
  it('appends an entry naming the replaced head and the restored one, and the chain verifies', async () => {
    const dataDir = path.join(scratch, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const location = { databaseUrl: undefined, dataDir };
    const atBackup = await noteReads(dataDir, 3);
    const backup = path.join(scratch, 'erx.backup');
    await backupDatabase(location, backup, { secretKey, operator: 'ops', clock });
    const replaced = await noteReads(dataDir, 4); // the entries the restore rolls back
    expect(replaced.seq).toBe(atBackup.seq + 1 + 4); // the backup's own entry, then four

    const result = await restoreDatabase(location, backup, { clock, secretKey, operator: 'ops' });
    expect(result).toMatchObject({ replacedHead: replaced, restoredHead: atBackup });

    const database = await openDatabase({ sqliteFile: sqliteFileIn(dataDir) });
    try {
      const last = await database.selectFrom('audit_entries').selectAll().orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow();
      expect(last).toMatchObject({ seq: atBackup.seq + 1, action: 'admin.database_restore', actor_kind: 'operator', operator: 'ops' });
      expect(JSON.parse(last.detail!)).toEqual({ replacedHead: replaced, restoredHead: atBackup, signed: true });
      const trail = createAuditTrail({ database, clock, secretKey });
      expect(await verifyAuditChain(trail)).toMatchObject({ intact: true, checked: atBackup.seq + 1 });
      // The head kept before the restore is gone, and verify says where to look.
      const verified = await verifyAuditChain(trail, undefined, replaced);
      expect(verified.broken).toMatchObject({ problem: 'known_head_missing' });
      expect(verified.broken!.message).toContain('admin.database_restore');
    } finally {
      await database.close();
    }
  });
});
