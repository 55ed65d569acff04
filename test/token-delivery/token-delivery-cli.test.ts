// `erx deliveries list` through the real CLI: without settings (the sandbox default) a token
// message is kept and listed; one whose send failed for good is listed as failed with why;
// --status, --prescription and --scid filter; --json answers the list; bad filters are refused;
// each listing is an audit entry.
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildFeatures, type Features } from '../../src/features.ts';
import type { Deps } from '../../src/deps.ts';
import { assembleDeps, closeDeps } from '../../src/runtime.ts';
import { tokenMessages } from '../../src/token-delivery/index.ts';
import { openTokenMessageSenders } from '../../src/token-delivery/token-message-senders.ts';
import { sendDueTokenMessages } from '../../src/token-delivery/token-message-runner.ts';
import { type TokenMessageRequest } from '../../src/token-delivery/token-message-text.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson, type CliEnvironment } from '../cli/cli-helpers.ts';
import { startTwilioFake, type TwilioFake } from './token-delivery-given.ts';

let cli: CliEnvironment;
let twilio: TwilioFake;
const opened: Deps[] = [];

async function featuresWith(extra: Record<string, string>): Promise<Features> {
  const deps = await assembleDeps(loadConfig({ ...cli.env, ...extra }));
  opened.push(deps);
  return buildFeatures(deps);
}

function request(prescriptionId: string, channel: 'SMS' | 'EMAIL', destination: string): TokenMessageRequest {
  return { prescriptionId, organizationId: 'org-1', channel, destination, prescriberName: 'Dr Anna Smith' };
}

async function issue(features: Features, message: TokenMessageRequest): Promise<void> {
  await features.prescriptions.unitOfWork.run(async (work) => work.record(tokenMessages, message));
}

beforeAll(async () => {
  cli = createCliEnvironment();
  twilio = await startTwilioFake();
  expect((await runErx(cli.env, ['migrate'])).code).toBe(0);
  // Without settings: kept.
  const sandbox = await featuresWith({});
  await issue(sandbox, request('rx-kept-sms', 'SMS', '0412345678'));
  await issue(sandbox, request('rx-kept-email', 'EMAIL', 'j.wood@example.com'));
  // With Twilio's settings, and Twilio refusing the number for good: failed.
  const configured = await featuresWith(twilio.env());
  await issue(configured, request('rx-failed', 'SMS', '0400000000'));
  twilio.failNext({ status: 400, code: 21211 });
  const senders = openTokenMessageSenders(configured.tokenDelivery.config, 2000);
  await sendDueTokenMessages(configured.tokenDelivery, senders, 'cli-test');
  senders.close();
}, 60_000);
afterAll(async () => {
  for (const deps of opened) await closeDeps(deps);
  await twilio?.close();
  await cli?.cleanup();
});

describe('erx deliveries list', () => {
  it('lists kept and failed messages, newest first, destinations masked, never the text', async () => {
    const list = await runErxJson<Array<Record<string, unknown>>>(cli.env, ['deliveries', 'list']);
    expect(list.map((m) => [m.prescription_id, m.status, m.channel])).toEqual(
      expect.arrayContaining([
        ['rx-kept-sms', 'kept', 'SMS'],
        ['rx-kept-email', 'kept', 'EMAIL'],
        ['rx-failed', 'failed', 'SMS'],
      ]),
    );
    expect(list).toHaveLength(3);
    const text = JSON.stringify(list);
    expect(text).not.toContain('0412345678');
    expect(text).not.toContain('j.wood@example.com');
    expect(text).not.toContain('has sent you');
    expect(list.find((m) => m.status === 'failed')!.last_error).toContain('21211');
  });

  it('filters by --status and --prescription', async () => {
    const kept = await runErxJson<Array<Record<string, unknown>>>(cli.env, ['deliveries', 'list', '--status', 'kept']);
    expect(kept.map((m) => m.prescription_id).sort()).toEqual(['rx-kept-email', 'rx-kept-sms']);
    const one = await runErxJson<Array<Record<string, unknown>>>(cli.env, ['deliveries', 'list', '--prescription', 'rx-failed']);
    expect(one.map((m) => [m.prescription_id, m.status, m.attempts])).toEqual([['rx-failed', 'failed', 1]]);
  });

  it('prints one line per message without --json', async () => {
    const result = await runErx(cli.env, ['deliveries', 'list', '--status', 'failed']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    // The SCID column: none here, as these messages' prescriptions were never created (a Pending one has none either).
    expect(lines[0]).toMatch(/failed\s+SMS\s+\*\*\*000\s+scid none\s+prescription rx-failed\s+attempts 1\s+Twilio answered 400 \(code 21211\)/);
  });

  it('refuses an unknown status and a bad limit in one line', async () => {
    expectOneLineRefusal(await runErx(cli.env, ['deliveries', 'list', '--status', 'delivered']), /--status must be one of pending, sent, failed, kept/);
    expectOneLineRefusal(await runErx(cli.env, ['deliveries', 'list', '--limit', 'lots']), /--limit must be a whole number/);
    expectOneLineRefusal(await runErx(cli.env, ['deliveries', 'list', '--scid', "x' or 1=1 --"]), /--scid must be a SCID: 18 letters and digits/);
  });

  it('takes --scid and leaves one admin.deliveries_read entry per listing, as the operator who ran it', async () => {
    const deps = opened[0]!;
    const before = await deps.database.selectFrom('audit_chain').select('last_seq').executeTakeFirstOrThrow();
    expect(await runErxJson(cli.env, ['deliveries', 'list', '--scid', 'abcdefghijklmnopq1'])).toEqual([]);
    const entries = await deps.database.selectFrom('audit_entries').selectAll().where('seq', '>', before.last_seq).execute();
    expect(entries.map((e) => [e.action, e.actor_kind, e.operator, e.prescription_scid])).toEqual([['admin.deliveries_read', 'operator', os.userInfo().username, 'ABCDEFGHIJKLMNOPQ1']]);
  });
});
