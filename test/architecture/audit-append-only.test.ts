// The audit trail is append-only: outside the audit store (audit-store.ts: appending moves
// the chain's head, retention removes old entries and moves its anchor), no code in src/
// updates or deletes audit_entries or audit_chain, through Kysely or in raw SQL.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const STORE = path.normalize('src/audit/audit-store.ts');
const TABLE = '(?:audit_entries|audit_chain)';
const FORBIDDEN = [
  new RegExp(`(?:updateTable|deleteFrom|replaceInto|mergeInto)\\(\\s*['"\`]${TABLE}['"\`]`),
  new RegExp(`\\b(?:UPDATE|DELETE\\s+FROM|TRUNCATE(?:\\s+TABLE)?|DROP\\s+TABLE|ALTER\\s+TABLE)\\s+["\`]?${TABLE}\\b`, 'i'),
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** The lines of `text` that change an audit table, as `file:line: code`. */
export function auditWritesIn(file: string, text: string): string[] {
  return text
    .split('\n')
    .map((line, i) => ({ line: line.trim(), at: `${file}:${i + 1}` }))
    .filter(({ line }) => FORBIDDEN.some((pattern) => pattern.test(line)))
    .map(({ line, at }) => `${at}: ${line}`);
}

describe('the audit trail is append-only', () => {
  it('the scan catches an update or a delete however written', () => {
    for (const code of [
      "await trx.updateTable('audit_entries').set({ outcome: 'success' })",
      'db.deleteFrom("audit_chain")',
      'await sql`UPDATE audit_entries SET patient_id = ${x}`.execute(db)',
      "await sql`delete from audit_entries where seq = 1`.execute(db)",
      'TRUNCATE audit_entries',
    ]) {
      expect(auditWritesIn('x.ts', code), code).toHaveLength(1);
    }
    expect(auditWritesIn('x.ts', "db.insertInto('audit_entries').values(rows)\ndb.selectFrom('audit_chain')")).toEqual([]);
  });

  it('no file in src/ but the audit store updates or deletes audit_entries or audit_chain', () => {
    const found = sourceFiles('src')
      .filter((file) => path.normalize(file) !== STORE)
      .flatMap((file) => auditWritesIn(file, fs.readFileSync(file, 'utf8')));
    expect(found).toEqual([]);
    // The store itself is where they are, so the scan looks at the right thing.
    expect(auditWritesIn(STORE, fs.readFileSync(STORE, 'utf8')).length).toBeGreaterThan(0);
  });
});
