// SIGTERM drains every background loop of `erx worker` through their one stop, the token
// runner's included: a send in flight (a slow Twilio) finishes and its outcome is recorded
// before the process exits 0; nothing is left leased.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTokenMessages, tokenMessages } from '../../src/token-delivery/index.ts';
import { createCliEnvironment, type CliEnvironment } from '../cli/cli-helpers.ts';
import { givenPartnerWithEndpoint, openEventSource, spawnWorker, waitUntil, type EventSource } from '../webhooks/webhook-processes.ts';
import { startTwilioFake, type TwilioFake } from './token-delivery-given.ts';

let cli: CliEnvironment;
let twilio: TwilioFake;
let source: EventSource;
beforeAll(async () => {
  twilio = await startTwilioFake();
  cli = createCliEnvironment({ ...twilio.env(), ERX_TOKEN_MESSAGE_POLL_MS: '100' });
  source = await openEventSource(cli.env);
});
afterAll(async () => {
  await source?.close();
  await twilio?.close();
  await cli?.cleanup();
});

describe('stopping a worker', () => {
  it('on SIGTERM lets the token send in flight finish and record, then exits 0', async () => {
    const g = await givenPartnerWithEndpoint(source, 'token-drain', 'http://127.0.0.1:9/unused');
    twilio.answerDelayMs = 700;
    const worker = await spawnWorker(cli.env);
    const request = { prescriptionId: 'drained-prescription', organizationId: g.organizationId, channel: 'SMS' as const, destination: '+61411111111', prescriberName: 'Dr X', tokenUrl: 'http://x/tokens/y' };
    await source.features.prescriptions.unitOfWork.run(async (work) => work.record(tokenMessages, request));
    await waitUntil(() => twilio.requests > 0, 10_000, () => `the message never reached Twilio:\n${worker.output()}`);
    const started = Date.now();
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    // It waited for Twilio's answer rather than dropping the send.
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    const [message] = await listTokenMessages(source.features.tokenDelivery, { prescriptionId: 'drained-prescription' });
    expect(message).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
    expect(twilio.received).toHaveLength(1);
    const leased = await source.deps.database.selectFrom('token_messages').select('id').where('lease_owner', 'is not', null).execute();
    expect(leased).toEqual([]);
  }, 40_000);
});
