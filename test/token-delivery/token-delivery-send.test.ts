// Tokens are really sent: after the commit (never for a change that rolled back), by SMS
// through Twilio's Messages API (a local fake of it) and by e-mail through SMTP (a real local
// server), retried after a temporary failure under token delivery's own retry table, failed for good
// after a permanent one; the message names the prescriber and carries the token link (composed
// when sent: the row holds no link), never the medicine or an identifier; a reissue sends again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HI_DEMO_PATIENTS } from '../../src/hi-service/hi-demo-fixtures.ts';
import { hashClearTokenPageKeys } from '../../src/platform/db/sealed-columns.ts';
import { createPrometheusMetrics } from '../../src/platform/metrics/prometheus-metrics.ts';
import { listTokenMessages, startTokenMessageRunner, tokenMessages } from '../../src/token-delivery/index.ts';
import { openTokenMessageSenders, type TokenMessageSenders } from '../../src/token-delivery/token-message-senders.ts';
import { sendDueTokenMessages } from '../../src/token-delivery/token-message-runner.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPrescription, prescriptionsClient } from '../prescriptions/prescriptions-given.ts';
import { startSmtpServer, startTwilioFake, type SmtpFake, type TwilioFake } from './token-delivery-given.ts';

let twilio: TwilioFake;
let smtp: SmtpFake;
const env: Record<string, string> = {};
beforeAll(async () => {
  twilio = await startTwilioFake();
  smtp = await startSmtpServer();
  Object.assign(env, twilio.env(), smtp.env(), { ERX_TOKEN_MESSAGE_TIMEOUT_MS: '2000' });
});
const { t, c } = useTestApp({ env }, async (t) => ({ c: await givenClinic(t) }));
let senders: TokenMessageSenders;
beforeAll(() => {
  senders = openTokenMessageSenders(t.features.tokenDelivery.config, 2000);
});
afterAll(async () => {
  senders?.close();
  await twilio?.close();
  await smtp?.close();
});

const sendDue = () => sendDueTokenMessages(t.features.tokenDelivery, senders, 'test-runner');
const messagesOf = (prescriptionId: string) => listTokenMessages(t.features.tokenDelivery, { prescriptionId });
const wood = HI_DEMO_PATIENTS.activeVerified;

async function prescriptionIdOf(scid: string): Promise<string> {
  const row = await t.deps.database.selectFrom('prescriptions').select('id').where('scid', '=', scid).executeTakeFirstOrThrow();
  return row.id;
}

/** Nothing of the medicine, the patient or an identifier. */
function expectNothingIdentifying(body: string, scid: string) {
  for (const secret of ['Amoxicillin', '500 mg', wood.given_name, wood.family_name, wood.ihi_number, wood.medicare_card_number, wood.phone, wood.email, scid]) {
    expect(body).not.toContain(secret);
  }
}

describe('by SMS through Twilio', () => {
  it('after the commit the runner is woken and the fake receives the token link and the prescriber, nothing else', async () => {
    const runner = startTokenMessageRunner(t.features.tokenDelivery, { id: 'woken-runner' });
    try {
      const arrived = twilio.nextMessage();
      const prescription = await givenPrescription(t, c);
      const sms = await arrived;
      expect(sms.to).toBe(wood.phone);
      expect(sms.from).toBe('+61400000000');
      expect(sms.body).toContain(prescription.url);
      const { given_name, family_name } = prescription.prescriber as { given_name: string; family_name: string };
      expect(sms.body).toContain(`${given_name} ${family_name}`);
      expectNothingIdentifying(sms.body, prescription.scid);
    } finally {
      await runner.stop();
    }
  });

  it('records the message sent, with the destination masked in the list', async () => {
    const prescription = await givenPrescription(t, c);
    expect(await sendDue()).toMatchObject({ sent: 1, failed: 0, retrying: 0 });
    const [message] = await messagesOf(await prescriptionIdOf(prescription.scid));
    expect(message).toMatchObject({ channel: 'SMS', status: 'sent', attempts: 1, last_error: null });
    expect(message!.destination).not.toContain(wood.phone);
    expect(message!.destination.endsWith(wood.phone.slice(-3))).toBe(true);
  });

  it('retries a 503 and a 429 after the backoff, then is sent', async () => {
    const prescription = await givenPrescription(t, c);
    const before = twilio.requests;
    twilio.failNext({ status: 503, code: 20503 }, { status: 429, code: 20429 });
    expect(await sendDue()).toMatchObject({ sent: 0, retrying: 1 });
    expect(await sendDue()).toMatchObject({ sent: 0, retrying: 0 }); // not due yet
    t.clock.advanceSeconds(1);
    expect(await sendDue()).toMatchObject({ sent: 0, retrying: 1 });
    t.clock.advanceSeconds(2);
    expect(await sendDue()).toMatchObject({ sent: 1 });
    expect(twilio.requests - before).toBe(3);
    expect(twilio.received.at(-1)!.body).toContain(prescription.url);
    const [message] = await messagesOf(await prescriptionIdOf(prescription.scid));
    expect(message).toMatchObject({ status: 'sent', attempts: 3 });
  });

  it('fails at once on a 400 (21211, invalid To), not retried, and the list shows why', async () => {
    const prescription = await givenPrescription(t, c);
    const before = twilio.requests;
    twilio.failNext({ status: 400, code: 21211 });
    expect(await sendDue()).toMatchObject({ failed: 1, retrying: 0 });
    t.clock.advanceSeconds(60);
    expect(await sendDue()).toMatchObject({ sent: 0, failed: 0, retrying: 0 });
    expect(twilio.requests - before).toBe(1);
    const failed = await listTokenMessages(t.features.tokenDelivery, { status: 'failed' });
    const id = await prescriptionIdOf(prescription.scid);
    const message = failed.find((m) => m.prescription_id === id);
    expect(message).toMatchObject({ status: 'failed', attempts: 1 });
    expect(message!.last_error).toContain('21211');
  });

  it('a reissue sends again: a second message with the token link', async () => {
    const prescription = await givenPrescription(t, c);
    await sendDue();
    const reissued = await prescriptionsClient(t, c).change('reissue', prescription.scid);
    expect(reissued.statusCode).toBe(200);
    expect(await sendDue()).toMatchObject({ sent: 1 });
    const messages = await messagesOf(await prescriptionIdOf(prescription.scid));
    expect(messages.map((m) => m.status)).toEqual(['sent', 'sent']);
    expect(twilio.received.at(-1)!.body).toContain(reissued.json().data.url);
  });

  it('a reissue of a prescription made before keys were hashed sends the key it kept (sealed since), the one its page opens by', async () => {
    const prescription = await givenPrescription(t, c);
    await sendDue();
    const legacyKey = 'LegacyKeyInClear_0456b';
    // As an older erx left it (the key in clear), then as the startup step leaves it (hashed, the key sealed).
    await t.deps.database.updateTable('prescriptions').set({ token: legacyKey }).where('scid', '=', prescription.scid).execute();
    expect(await hashClearTokenPageKeys(t.deps.database, t.deps.secretKey)).toBe(1);
    expect((await prescriptionsClient(t, c).change('reissue', prescription.scid)).statusCode).toBe(200);
    expect(await sendDue()).toMatchObject({ sent: 1 });
    expect(twilio.received.at(-1)!.body).toMatch(new RegExp(`/tokens/${legacyKey}$`));
    expect((await t.app.inject({ method: 'GET', url: `/tokens/${legacyKey}` })).statusCode).toBe(200);
  });
});

describe('never lost, never recorded twice', () => {
  it("a runner that hangs mid-send loses its lease: another sends the message, and the first one's late outcome is refused", async () => {
    const prescription = await givenPrescription(t, c);
    let answerLate: (result: { outcome: 'success'; providerId: string; error: null }) => void = () => {};
    const hanging: TokenMessageSenders = { send: () => new Promise((resolve) => (answerLate = resolve)), close: () => {} };
    const firstPass = sendDueTokenMessages(t.features.tokenDelivery, hanging, 'hanging-runner');
    // Claimed: no other runner takes it while the lease lasts.
    await expect.poll(() => t.deps.database.selectFrom('token_messages').select('lease_owner').where('lease_owner', '=', 'hanging-runner').execute()).toHaveLength(1);
    expect(await sendDue()).toMatchObject({ sent: 0 });
    // The lease (2 timeouts and a margin) runs out: another runner sends it.
    t.clock.advanceSeconds(10);
    expect(await sendDue()).toMatchObject({ sent: 1 });
    expect(twilio.received.at(-1)!.body).toContain(prescription.url);
    answerLate({ outcome: 'success', providerId: 'SMlate', error: null });
    expect(await firstPass).toMatchObject({ sent: 0, failed: 0, retrying: 0 });
    const [message] = await messagesOf(await prescriptionIdOf(prescription.scid));
    expect(message).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('a wrong auth token is refused by Twilio (401) and fails without retrying', async () => {
    const prescription = await givenPrescription(t, c);
    const wrong = openTokenMessageSenders({ sms: { ...t.features.tokenDelivery.config.sms!, authToken: 'not-the-token' }, smtp: undefined }, 2000);
    expect(await sendDueTokenMessages(t.features.tokenDelivery, wrong, 'wrong-runner')).toMatchObject({ failed: 1 });
    wrong.close();
    const [message] = await messagesOf(await prescriptionIdOf(prescription.scid));
    expect(message).toMatchObject({ status: 'failed', last_error: 'Twilio answered 401 (code 20003)' });
  });
});

describe('the audit trail', () => {
  it("records each attempt as the system's, with the channel and outcome, never the phone or address", async () => {
    await givenPrescription(t, c);
    twilio.failNext({ status: 503, code: 20503 });
    await sendDue();
    t.clock.advanceSeconds(1);
    await sendDue();
    const entries = await t.deps.database.selectFrom('audit_entries').selectAll().where('action', '=', 'prescription.token_send').orderBy('seq', 'desc').limit(2).execute();
    expect(entries.map((e) => [e.outcome, e.actor_kind, e.organization_id, JSON.parse(e.detail!).reason, JSON.parse(e.detail!).endpoint])).toEqual([
      ['success', 'system', c.g.organizationId, 'success', 'SMS'],
      ['error', 'system', c.g.organizationId, 'http_5xx', 'SMS'],
    ]);
    const text = JSON.stringify(entries);
    expect(text).not.toContain(wood.phone);
    expect(text).not.toContain(wood.email);
  });
});

describe('metrics', () => {
  it('count each send attempt by channel and outcome class', async () => {
    const metrics = createPrometheusMetrics();
    const measured = { ...t.features.tokenDelivery, metrics };
    await givenPrescription(t, c);
    twilio.failNext({ status: 429, code: 20429 });
    await sendDueTokenMessages(measured, senders, 'metrics-runner');
    t.clock.advanceSeconds(1);
    await sendDueTokenMessages(measured, senders, 'metrics-runner');
    const { body } = await metrics.scrape();
    expect(body).toContain('erx_token_message_sends_total{channel="SMS",outcome="http_429"} 1');
    expect(body).toContain('erx_token_message_sends_total{channel="SMS",outcome="success"} 1');
  });
});

describe('never for what rolled back', () => {
  it('a change that rolls back leaves no message and nothing is sent', async () => {
    const before = twilio.requests;
    const request = { prescriptionId: 'rolled-back', organizationId: c.g.organizationId, channel: 'SMS' as const, destination: '+61411111111', prescriberName: 'Dr X', tokenUrl: 'http://x/tokens/y' };
    await expect(
      t.features.prescriptions.unitOfWork.run(async (work) => {
        work.record(tokenMessages, request);
        throw new Error('the change fails before its commit');
      }),
    ).rejects.toThrow('the change fails');
    expect(await messagesOf('rolled-back')).toEqual([]);
    expect(await sendDue()).toMatchObject({ sent: 0, failed: 0, retrying: 0 });
    expect(twilio.requests).toBe(before);
  });
});

describe('by e-mail through SMTP', () => {
  const byEmail = { delivery: { method: 'EMAIL', recipient_type: 'PATIENT' } };

  it('the SMTP server receives the token link, from ERX_SMTP_FROM to the patient, nothing identifying', async () => {
    const arrived = smtp.nextMessage();
    const prescription = await givenPrescription(t, c, byEmail);
    expect(await sendDue()).toMatchObject({ sent: 1 });
    const mail = await arrived;
    expect(mail.from).toBe('tokens@erx.example');
    expect(mail.to).toEqual([wood.email]);
    expect(mail.text).toContain(prescription.url);
    const body = mail.text.split(/\r?\n\r?\n/).slice(1).join('\n');
    expectNothingIdentifying(body, prescription.scid);
  });

  const lastAuditReason = async () => {
    const entry = await t.deps.database.selectFrom('audit_entries').select('detail').where('action', '=', 'prescription.token_send').orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow();
    return JSON.parse(entry.detail!).reason as string;
  };

  it('a 4xx (try later) is retried, classed `deferred` (not an HTTP class), then sent', async () => {
    const prescription = await givenPrescription(t, c, byEmail);
    smtp.refuseNext(451);
    expect(await sendDue()).toMatchObject({ retrying: 1 });
    expect(await lastAuditReason()).toBe('deferred');
    t.clock.advanceSeconds(1);
    const arrived = smtp.nextMessage();
    expect(await sendDue()).toMatchObject({ sent: 1 });
    expect((await arrived).text).toContain(prescription.url);
  });

  it('a 5xx (refused for good) fails at once, classed `refused` (not `http_4xx`), shown with its code', async () => {
    const prescription = await givenPrescription(t, c, byEmail);
    smtp.refuseNext(550);
    expect(await sendDue()).toMatchObject({ failed: 1, retrying: 0 });
    expect(await lastAuditReason()).toBe('refused');
    const [message] = await messagesOf(await prescriptionIdOf(prescription.scid));
    expect(message).toMatchObject({ channel: 'EMAIL', status: 'failed', attempts: 1 });
    expect(message!.last_error).toContain('550');
    expect(message!.destination).not.toContain(wood.email);
  });
});
