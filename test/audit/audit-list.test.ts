// `erx audit list`: who touched a patient, a user or an organization, newest first, with the
// filters an investigation needs; a bad filter is refused in one line.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditError, listAuditEntries, runInAuditScope } from '../../src/audit/index.ts';
import { useTestApp } from '../given.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson, type CliEnvironment } from '../cli/cli-helpers.ts';

const scopeOf = (userId: string) => ({ actor: { kind: 'user' as const, partnerId: 'pms-l', organizationId: 'org-l', userId }, hpio: null, requestId: `req_${userId}`, clientAddress: '127.0.0.1' });

describe('audit list (the service)', () => {
  const { t } = useTestApp({});
  let start: string;

  beforeAll(async () => {
    t.clock.advanceSeconds(1);
    start = t.clock.now().toISOString();
    const note = async (userId: string, event: Parameters<typeof t.features.audit.noteAccess>[0]) => {
      t.clock.advanceSeconds(60);
      await runInAuditScope(scopeOf(userId), async () => {
        await t.features.audit.noteAccess(event);
        const { currentAuditScope } = await import('../../src/audit/index.ts');
        await t.features.audit.flushPending(currentAuditScope()!);
      });
    };
    await note('alice', { action: 'patient.read', patientId: 'patient-l1' });
    await note('bob', { action: 'patient.update', patientId: 'patient-l1' });
    await note('bob', { action: 'patient.read', patientId: 'patient-l2' });
    await note('alice', { action: 'user.roles_change', targetUserId: 'bob' });
    await note('carol', { action: 'prescription.read', patientId: 'patient-l1', scid: 'SCID-L' });
  });

  const list = (input: Parameters<typeof listAuditEntries>[1]) => listAuditEntries(t.features.audit, input);

  it('answers who touched a patient, newest first', async () => {
    const entries = await list({ patient: 'patient-l1' });
    expect(entries.map((e) => [e.user_id, e.action])).toEqual([
      ['carol', 'prescription.read'],
      ['bob', 'patient.update'],
      ['alice', 'patient.read'],
    ]);
  });

  it('finds a user as the one acting or the one acted on, and narrows by action, time and count', async () => {
    expect((await list({ user: 'bob' })).map((e) => e.action)).toEqual(['user.roles_change', 'patient.read', 'patient.update']);
    expect((await list({ user: 'bob', action: 'patient.read' })).map((e) => e.patient_id)).toEqual(['patient-l2']);
    const third = new Date(new Date(start).getTime() + 3 * 60_000).toISOString();
    expect((await list({ organization: 'org-l', since: third })).map((e) => e.user_id)).toEqual(['carol', 'alice', 'bob']);
    expect((await list({ organization: 'org-l', until: third })).map((e) => e.user_id)).toEqual(['bob', 'alice']);
    expect(await list({ organization: 'org-l', limit: '2' })).toHaveLength(2);
    expect(await list({ patient: 'nobody' })).toEqual([]);
  });

  it.each([
    [{ since: 'yesterday' }, /--since must be an ISO-8601 time/],
    [{ until: '2026-13-45' }, /--until must be an ISO-8601 time/],
    [{ since: '2026-11-26', until: '2026-11-25' }, /--since must be before --until/],
    [{ action: 'patient.steal' }, /unknown action "patient.steal"/],
    [{ limit: '0' }, /--limit must be a whole number from 1 to 10000/],
    [{ limit: '10001' }, /--limit must be a whole number/],
    [{ limit: 'ten' }, /--limit must be a whole number/],
  ])('refuses %o', async (input, message) => {
    await expect(list(input)).rejects.toThrow(AuditError);
    await expect(list(input)).rejects.toThrow(message);
  });
});

describe('erx audit list, export and prune (the commands)', { timeout: 180_000 }, () => {
  let cli: CliEnvironment;
  beforeAll(() => {
    cli = createCliEnvironment();
  });
  afterAll(() => cli.cleanup());

  it('lists the entries of an organization the commands acted on', async () => {
    const org = await runErxJson(cli.env, ['org', 'create', '--name', 'Listed Clinic']);
    const entries = await runErxJson(cli.env, ['audit', 'list', '--organization', org.organization_id]);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'admin.organization_create', actor_kind: 'operator', organization_id: org.organization_id });
    const text = await runErx(cli.env, ['audit', 'list', '--action', 'admin.organization_create']);
    expect(text.stdout).toMatch(/#1 .* admin\.organization_create {2}success {2}by operator /);
  });

  it('exports as FHIR NDJSON to stdout or a new file, and prunes nothing younger than the retention', async () => {
    const stdout = await runErx(cli.env, ['audit', 'export', '--format', 'fhir']);
    expect(stdout.code).toBe(0);
    const resources = stdout.stdout.trim().split('\n').map((line) => JSON.parse(line));
    // The organization's creation, then the reads of the trail the commands before made (each list and export is recorded).
    const codes = resources.map((r) => r.subtype.at(-1).code);
    expect(codes[0]).toBe('admin.organization_create');
    expect(new Set(codes.slice(1))).toEqual(new Set(['admin.audit_read']));
    const file = path.join(cli.env.ERX_DATA_DIR!, 'audit.ndjson');
    const written = await runErx(cli.env, ['audit', 'export', '--format', 'fhir', '--output', file, '--since', '2020-01-01']);
    expect(written.stderr).toContain(`exported ${resources.length + 1} AuditEvent resources to ${file}`);
    // Audit entries name patients and users: the file is the operator's alone (issue 38 item 1).
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(`${lines.slice(0, -1).join('\n')}\n`).toBe(stdout.stdout);
    expect(JSON.parse(lines.at(-1)!).subtype.at(-1).code).toBe('admin.audit_read');
    // An existing file is never overwritten.
    expect((await runErx(cli.env, ['audit', 'export', '--format', 'fhir', '--output', file])).code).not.toBe(0);

    const pruned = await runErxJson(cli.env, ['audit', 'prune']);
    expect(pruned).toMatchObject({ dry_run: false, retention_years: 7, removed: 0 });
    const dryRun = await runErxJson(cli.env, ['audit', 'prune', '--dry-run']);
    expect(dryRun).toMatchObject({ dry_run: true, removed: 0 });
  });

  it.each([
    [['export', '--format', 'csv'], /--format must be fhir, got "csv"/],
    [['export', '--format', 'fhir', '--since', 'soon'], /--since must be an ISO-8601 time/],
  ])('refuses audit %o in one line', async (args, message) => {
    expectOneLineRefusal(await runErx(cli.env, ['audit', ...args]), message);
  });

  it.each([
    [['--since', 'last tuesday'], /--since must be an ISO-8601 time/],
    [['--action', 'nope'], /unknown action "nope"/],
    [['--limit', '-3'], /--limit must be a whole number/],
  ])('refuses %o in one line', async (args, message) => {
    expectOneLineRefusal(await runErx(cli.env, ['audit', 'list', ...args]), message);
  });
});
