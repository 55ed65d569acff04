// Every `erx` command that changes state leaves one entry of its action, as the operator's doing
// (the OS user), with one request id per command and the organization or partner acted on.
// The commands run as separate processes against one database, as an operator runs them.
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { Deps } from '../../src/deps.ts';
import { buildFeatures, type Features } from '../../src/features.ts';
import { createOrganization } from '../../src/onboarding/index.ts';
import { assembleDeps, closeDeps } from '../../src/runtime.ts';
import { eventMetadata, newEventId, recordEvent } from '../../src/webhooks/index.ts';
import { createCliEnvironment, runErxJson, type CliEnvironment } from '../cli/cli-helpers.ts';
import { auditEntriesAfter, expectNoneOfInAuditTrail, lastAuditSeq, type AuditEntryRow } from './audit-helpers.ts';

let cli: CliEnvironment;
let deps: Deps;
let features: Features;
let receiver: http.Server;
let receiverUrl: string;
const operator = os.userInfo().username;

beforeAll(async () => {
  cli = createCliEnvironment();
  deps = await assembleDeps(loadConfig(cli.env));
  features = buildFeatures(deps);
  receiver = http.createServer((_request, response) => response.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  if (deps) await closeDeps(deps);
  await cli.cleanup();
});

const t = { get deps() { return deps; } };

/** Runs the command; returns its result and the one entry of `action` it left (and checks it is the only one). */
async function run(args: string[], action: string): Promise<{ result: any; entry: AuditEntryRow; all: AuditEntryRow[] }> {
  const before = await lastAuditSeq(t);
  const result = await runErxJson(cli.env, args);
  const all = await auditEntriesAfter(t, before);
  const entries = all.filter((e) => e.action === action);
  expect(entries, `exactly one ${action} entry after erx ${args.join(' ')}`).toHaveLength(1);
  const entry = entries[0]!;
  expect(entry).toMatchObject({ actor_kind: 'operator', operator, user_id: null, outcome: 'success', client_address: null });
  expect(entry.request_id).toMatch(/^req_/);
  // Everything one command recorded carries its request id.
  expect(new Set(all.map((e) => e.request_id))).toEqual(new Set([entry.request_id]));
  return { result, entry, all };
}

describe('erx commands that change state, in the audit trail', { timeout: 180_000 }, () => {
  it('records partner, organization, user and session commands with the ids acted on', async () => {
    const partner = await run(['partner', 'create', 'audited-pms'], 'admin.partner_create');
    expect(partner.entry).toMatchObject({ partner_id: 'audited-pms', organization_id: null, detail: { partnerId: 'audited-pms' } });

    const frames = await run(['partner', 'set-frame-origins', 'audited-pms', 'https://app.example.com'], 'admin.partner_frame_origins');
    expect(frames.entry).toMatchObject({ partner_id: 'audited-pms', detail: { partnerId: 'audited-pms', count: 1 } });
    await run(['partner', 'rotate-secret', 'audited-pms'], 'admin.partner_rotate_secret');

    const org = await run(['org', 'create', '--name', 'Audited Clinic', '--hpio', '8003624166667003'], 'admin.organization_create');
    const orgId = org.result.organization_id as string;
    expect(org.entry).toMatchObject({ organization_id: orgId, hpio: '8003624166667003' });
    expect((await run(['org', 'rotate-secret', orgId], 'admin.organization_rotate_secret')).entry.organization_id).toBe(orgId);
    const enabled = await run(['org', 'enable-partner', orgId, 'audited-pms'], 'admin.partner_enable');
    expect(enabled.entry).toMatchObject({ organization_id: orgId, partner_id: 'audited-pms' });

    const user = await run(
      ['user', 'create', '--org', orgId, '--email', 'audited.user@example.test', '--given-name', 'Audrey', '--family-name', 'Tedder', '--roles', 'provider,admin'],
      'user.create',
    );
    expect(user.entry).toMatchObject({ organization_id: orgId, target_user_id: user.result.user_id, detail: { roles: ['provider', 'admin'] } });

    const shown = await run(['user', 'show', user.result.user_id], 'user.read');
    expect(shown.entry).toMatchObject({ organization_id: orgId, target_user_id: user.result.user_id });

    const revoked = await run(['sessions', 'revoke', '--organization', orgId, '--user', user.result.user_id], 'admin.sessions_revoke');
    expect(revoked.entry).toMatchObject({ organization_id: orgId, target_user_id: user.result.user_id, detail: { count: 0 } });
    const disabled = await run(['org', 'disable-partner', orgId, 'audited-pms'], 'admin.partner_disable');
    expect(disabled.entry).toMatchObject({ organization_id: orgId, partner_id: 'audited-pms', detail: { partnerId: 'audited-pms', count: 0 } });
    // Two commands, two request ids.
    expect(disabled.entry.request_id).not.toBe(revoked.entry.request_id);
  });

  it('records webhook endpoint commands, a replay with the event replayed, and a ping with its outcome', async () => {
    await runErxJson(cli.env, ['partner', 'create', 'hooked-pms']);
    const set = await run(['webhooks', 'set-endpoint', 'hooked-pms', receiverUrl], 'admin.webhook_endpoint_set');
    expect(set.entry).toMatchObject({ partner_id: 'hooked-pms', detail: { partnerId: 'hooked-pms' } });
    await run(['webhooks', 'rotate-secret', 'hooked-pms', '--overlap', '0s'], 'admin.webhook_secret_rotate');
    await run(['webhooks', 'disable', 'hooked-pms'], 'admin.webhook_endpoint_disable');
    await run(['webhooks', 'enable', 'hooked-pms'], 'admin.webhook_endpoint_enable');

    const eventId = newEventId();
    const org = await createOrganization(features.onboarding, { name: 'Hooked Clinic' });
    await features.onboarding.unitOfWork.run(async (work) => {
      recordEvent(work, { event_type: 'prescription.created', event_id: eventId, timestamp: new Date().toISOString(), partner_id: 'hooked-pms', organization_id: org.organization_id, data: {}, metadata: eventMetadata() });
    });
    const replay = await run(['webhooks', 'replay', eventId], 'admin.webhook_replay');
    expect(replay.entry).toMatchObject({ partner_id: 'hooked-pms', detail: { count: 1, subjectId: eventId, partnerId: 'hooked-pms' } });

    const ping = await run(['webhooks', 'ping', 'hooked-pms'], 'admin.webhook_ping');
    expect(ping.entry).toMatchObject({ partner_id: 'hooked-pms', detail: { partnerId: 'hooked-pms', subjectId: ping.result.event_id } });
  });

  it('records a sandbox seed as one entry beside those of its steps', async () => {
    const seed = await run(['sandbox', 'seed'], 'admin.sandbox_seed');
    expect(seed.entry).toMatchObject({ organization_id: seed.result.organization_id, partner_id: seed.result.partner_id });
    const actions = seed.all.map((e) => e.action);
    for (const step of ['admin.partner_create', 'admin.organization_create', 'admin.partner_enable']) expect(actions.filter((a) => a === step)).toHaveLength(1);
    expect(actions.filter((a) => a === 'user.create')).toHaveLength(2);
  });

  it('a read-only command leaves nothing, and the trail holds no name or e-mail the commands were given', async () => {
    const before = await lastAuditSeq(t);
    await runErxJson(cli.env, ['webhooks', 'show', 'hooked-pms']);
    expect(await auditEntriesAfter(t, before)).toEqual([]);
    await expectNoneOfInAuditTrail(t, ['Audrey', 'Tedder', 'audited.user@example.test', 'Audited Clinic', 'Olivia', 'demo-clinic.example']);
  });
});
