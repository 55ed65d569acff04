// The child of the power-cut test (sqlite-power-cut.test.ts): acknowledged writes, each with
// its audit entry, and audit entries of reads, on the SQLite file it is given, as fast as it
// can with many in flight, until it is killed. It prints a line for each the moment its
// promise resolves (the acknowledgement), with a synchronous write, so the parent knows exactly
// what was acknowledged: `w <partner id>` for a write, `r <partner id>` for a read's entry.
// Run: node bin/run-ts.js test/platform/power-cut-writer.ts <sqlite file> <run> <secret key, hex>
import fs from 'node:fs';
import pino from 'pino';
import { auditRecords, createAuditTrail } from '../../src/audit/index.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { openDatabase } from '../../src/platform/db/database.ts';
import { migrateToLatest } from '../../src/platform/db/migrator.ts';
import { createUnitOfWork } from '../../src/platform/db/unit-of-work.ts';

const IN_FLIGHT = 16;

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes the whole line before going on, so an acknowledgement is out before the next write
 * starts. Stdout is a pipe the parent may be slow to read (a loaded machine): a full pipe
 * answers EAGAIN, and the write is tried again after a millisecond instead of ending the child.
 */
function writeAll(text: string): void {
  const bytes = Buffer.from(text);
  for (let written = 0; written < bytes.length; ) {
    try {
      written += fs.writeSync(1, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

async function main(file: string, run: string, secretKey: Buffer): Promise<void> {
  const database = await openDatabase({ sqliteFile: file });
  await migrateToLatest(database);
  const audit = createAuditTrail({ database, clock: systemClock, secretKey });
  const unitOfWork = createUnitOfWork(database, [audit], pino({ level: 'silent' }));
  const ack = (line: string) => writeAll(`${line}\n`);
  writeAll('ready\n');
  let next = 0;
  const write = async () => {
    for (;;) {
      const id = `pc-${run}-w${next++}`;
      await unitOfWork.run(async ({ trx, record }) => {
        await trx.insertInto('partners').values({ id, name: id, secret_hash: 'x', created_at: systemClock.now().toISOString() }).execute();
        record(auditRecords, { action: 'admin.partner_create', detail: { partnerId: id } });
      });
      ack(`w ${id}`);
    }
  };
  const read = async () => {
    for (;;) {
      const id = `pc-${run}-r${next++}`;
      await audit.noteAccess({ action: 'patient.read', detail: { partnerId: id } });
      ack(`r ${id}`);
    }
  };
  await Promise.all([...Array.from({ length: IN_FLIGHT }, write), ...Array.from({ length: IN_FLIGHT }, read)]);
}

const [file, run, key] = process.argv.slice(2);
if (!file || !run || !key) throw new Error('usage: power-cut-writer.ts <sqlite file> <run> <secret key, hex>');
await main(file, run, Buffer.from(key, 'hex'));
