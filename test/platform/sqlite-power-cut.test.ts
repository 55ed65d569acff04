// Decision 28 on SQLite: an acknowledged write, its audit entry and a read's audit entry survive
// the process dying at any moment. A child process (power-cut-writer.ts) writes as fast as it
// can with many units in flight and is killed with SIGKILL mid-stream, three times over on the
// same file; after each, the database passes integrity_check, every write and entry it
// acknowledged is there, and the audit chain verifies.
// What SIGKILL cannot show: it leaves the operating system's page cache, so it does not lose
// what was written but not yet fsynced, as a power cut would. That every group is fsynced
// before anything of it is released is shown in sqlite-wal-sync.test.ts, by holding the fsync.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createAuditTrail, verifyAuditChain } from '../../src/audit/index.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { openDatabase } from '../../src/platform/db/database.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'erx-power-cut-'));
const file = path.join(dir, 'erx.sqlite');
const secretKey = Buffer.alloc(32, 7);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs the writer until it has acknowledged `acks` units (plus whatever is in flight then), kills it with SIGKILL and returns what it acknowledged. */
async function runAndKill(run: number, acks: number): Promise<{ writes: string[]; reads: string[]; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ['bin/run-ts.js', 'test/platform/power-cut-writer.ts', file, String(run), secretKey.toString('hex')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const writes: string[] = [];
  const reads: string[] = [];
  let pending = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('w ')) writes.push(line.slice(2));
      if (line.startsWith('r ')) reads.push(line.slice(2));
    }
    if (writes.length + reads.length >= acks && child.exitCode === null && !child.killed) child.kill('SIGKILL');
  });
  const signal = await exited;
  if (signal !== 'SIGKILL') throw new Error(`the writer ended by itself (${signal ?? child.exitCode}):\n${stderr}`);
  return { writes, reads, signal };
}

describe('a power cut mid-stream (SIGKILL) on SQLite', () => {
  it('loses no acknowledged write or audit entry, three times over, and leaves an intact file and chain', async () => {
    const acknowledged = { writes: [] as string[], reads: [] as string[] };
    for (const [run, acks] of [[1, 400], [2, 1500], [3, 900]] as const) {
      const killed = await runAndKill(run, acks);
      expect(killed.writes.length).toBeGreaterThan(0);
      expect(killed.reads.length).toBeGreaterThan(0);
      acknowledged.writes.push(...killed.writes);
      acknowledged.reads.push(...killed.reads);
      const database = await openDatabase({ sqliteFile: file });
      try {
        const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(database);
        expect(integrity.rows.map((row) => row.integrity_check)).toEqual(['ok']);
        const partners = new Set((await database.selectFrom('partners').select('id').execute()).map((row) => row.id));
        expect(acknowledged.writes.filter((id) => !partners.has(id))).toEqual([]);
        const entries = await database.selectFrom('audit_entries').select(['action', 'partner_id']).where('partner_id', 'like', 'pc-%').execute();
        const created = new Set(entries.filter((e) => e.action === 'admin.partner_create').map((e) => e.partner_id));
        const read = new Set(entries.filter((e) => e.action === 'patient.read').map((e) => e.partner_id));
        expect(acknowledged.writes.filter((id) => !created.has(id))).toEqual([]);
        expect(acknowledged.reads.filter((id) => !read.has(id))).toEqual([]);
        // A write is there with its entry or not at all (one transaction).
        expect([...partners].filter((id) => id.startsWith('pc-') && !created.has(id))).toEqual([]);
        const chain = await verifyAuditChain(createAuditTrail({ database, clock: systemClock, secretKey }));
        expect(chain.intact).toBe(true);
      } finally {
        await database.close();
      }
    }
  }, 120_000);
});
