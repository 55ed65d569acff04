// erx audit verify | list | export | prune: the operator's tools over the audit trail.
import fs from 'node:fs';
import { once } from 'node:events';
import type { Command } from 'commander';
import { AuditError, exportAuditEventsAsFhir, listAuditEntries, listSecurityAlerts, pruneAuditTrail, readChainPoint, verifyAuditChain, type AuditEntryView, type AuditListInput } from '../audit/index.ts';
import { addJsonOption, printResult, withFeatures, type CommandOptions } from './cli-output.ts';

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('the audit trail: who accessed or changed what');

  addJsonOption(audit.command('verify'))
    .description('walk the hash chain from its anchor; exit 1 naming the first entry edited, removed or inserted')
    .option('--known-head <seq:hash>', 'a head printed by an earlier verify and kept outside the database: it must still be in the chain (or pruned)')
    .action(async (options: CommandOptions & { knownHead?: string }) => {
      const knownHead = options.knownHead === undefined ? undefined : readChainPoint('--known-head', options.knownHead);
      const progress = process.stderr.isTTY ? (checked: number, total: number) => process.stderr.write(`\rverify: ${checked}/${total} entries`) : undefined;
      const result = await withFeatures(({ audit }) => verifyAuditChain(audit, progress, knownHead));
      if (progress) process.stderr.write('\n');
      printResult(options, result, result.broken
        ? [`audit chain BROKEN at entry ${result.broken.seq}: ${result.broken.message}`, `${result.checked} entries checked before it`]
        : [
            `audit chain intact: ${result.checked} entries from ${result.anchor.seq + 1} to ${result.head.seq}`,
            `head hash: ${result.head.hash}`,
            `keep outside the database: head ${result.head.seq}:${result.head.hash} anchor ${result.anchor.seq}:${result.anchor.hash}`,
          ]);
      if (!result.intact) process.exitCode = 1;
    });

  addJsonOption(audit.command('list'))
    .description('entries, newest first (100 unless --limit): who touched a patient, a user, an organization')
    .option('--organization <organization_id>', 'entries of this organization')
    .option('--patient <patient_id>', 'entries about this patient')
    .option('--user <user_id>', 'entries by or about this user')
    .option('--action <action>', 'only this action, e.g. patient.read')
    .option('--since <time>', 'recorded at or after (ISO-8601)')
    .option('--until <time>', 'recorded before (ISO-8601)')
    .option('--limit <n>', 'at most this many entries (1 to 10000)')
    .action(async (options: CommandOptions & AuditListInput) => {
      const entries = await withFeatures(({ audit }) => listAuditEntries(audit, options));
      printResult(options, entries, [...entries.map(describeEntry), `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`]);
    });

  audit
    .command('export')
    .description('write entries as FHIR R4 AuditEvent resources, one JSON per line (stdout unless --output)')
    .requiredOption('--format <format>', 'fhir (the only format)')
    .option('--since <time>', 'recorded at or after (ISO-8601)')
    .option('--until <time>', 'recorded before (ISO-8601)')
    .option('--output <file>', 'write to this file instead of stdout')
    .action(async (options: { format: string; since?: string; until?: string; output?: string }) => {
      if (options.format !== 'fhir') throw new AuditError(`--format must be fhir, got "${options.format}"`);
      const out = options.output ? fs.createWriteStream(options.output, { flags: 'wx', mode: 0o600 }) : process.stdout;
      const write = async (line: string) => {
        if (!out.write(line)) await once(out, 'drain');
      };
      const result = await withFeatures(({ audit }) => exportAuditEventsAsFhir(audit, options, write));
      if (options.output) {
        await new Promise<void>((resolve, reject) => (out as fs.WriteStream).end((error?: Error | null) => (error ? reject(error) : resolve())));
        process.stderr.write(`exported ${result.exported} AuditEvent resources to ${options.output}\n`);
      }
    });

  addJsonOption(audit.command('alerts'))
    .description('security alerts: refused credentials counted per client address, endpoint, reason and minute (kept apart from the chain)')
    .option('--since <time>', 'buckets with a refusal at or after (ISO-8601)')
    .option('--address <address>', 'only this client address')
    .option('--limit <n>', 'at most this many buckets (1 to 10000, 100 unless given)')
    .action(async (options: CommandOptions & { since?: string; address?: string; limit?: string }) => {
      const alerts = await withFeatures((_features, deps) => listSecurityAlerts(deps.database, options));
      printResult(options, alerts, [
        ...alerts.map((a) => `${a.minute}  ${a.client_address || '-'}  ${a.endpoint}  ${a.reason}  x${a.count}${a.partner_id ? `  claimed ${a.partner_id}/${a.organization_id ?? '-'}/${a.user_id ?? '-'}` : ''}`),
        `${alerts.length} bucket${alerts.length === 1 ? '' : 's'}`,
      ]);
    });

  addJsonOption(audit.command('prune'))
    .description('remove entries older than ERX_AUDIT_RETENTION_YEARS (7 by default), moving the chain anchor')
    .option('--dry-run', 'count what would be removed, remove nothing')
    .action(async (options: CommandOptions & { dryRun?: boolean }) => {
      const result = await withFeatures(({ audit }) => pruneAuditTrail(audit, { dryRun: options.dryRun ?? false }));
      const verb = result.dry_run ? 'would remove' : 'removed';
      printResult(options, result, [`${verb} ${result.removed} audit entries recorded before ${result.horizon} (retention ${result.retention_years} years)`]);
    });
}

function describeEntry(e: AuditEntryView): string {
  const who = e.actor_kind === 'operator' ? `operator ${e.operator}` : e.actor_kind === 'user' ? `user ${e.user_id}` : e.actor_kind === 'partner' ? `partner ${e.partner_id}` : e.actor_kind;
  const targets = [
    e.organization_id && `org ${e.organization_id}`,
    e.patient_id && `patient ${e.patient_id}`,
    e.prescription_scid && `scid ${e.prescription_scid}`,
    e.target_user_id && `user ${e.target_user_id}`,
  ].filter(Boolean);
  return `#${e.seq}  ${e.recorded_at}  ${e.action}  ${e.outcome}  by ${who}${targets.length ? `  ${targets.join(' ')}` : ''}${e.request_id ? `  ${e.request_id}` : ''}`;
}
