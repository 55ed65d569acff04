// Without SMS or SMTP settings (the sandbox default) a token message is kept: written with the
// change, never sent, listed, and shown as kept on the prescription's portal page.
import { describe, expect, it } from 'vitest';
import { listTokenMessages } from '../../src/token-delivery/index.ts';
import { openTokenMessageSenders } from '../../src/token-delivery/token-message-senders.ts';
import { sendDueTokenMessages } from '../../src/token-delivery/token-message-runner.ts';
import { useTestApp } from '../given.ts';
import { signIn } from '../portal/portal-given.ts';
import { givenClinic, givenPrescription, prescriptionsClient } from '../prescriptions/prescriptions-given.ts';

const { t, c } = useTestApp({}, async (t) => ({ c: await givenClinic(t) }));

describe('without settings', () => {
  it('keeps the SMS and e-mail messages of a create and a reissue; nothing is sent', async () => {
    const bySms = await givenPrescription(t, c);
    const byEmail = await givenPrescription(t, c, { delivery: { method: 'EMAIL', recipient_type: 'PATIENT' } });
    expect((await prescriptionsClient(t, c).change('reissue', bySms.scid)).statusCode).toBe(200);
    const senders = openTokenMessageSenders(t.features.tokenDelivery.config, 2000);
    expect(await sendDueTokenMessages(t.features.tokenDelivery, senders, 'kept-runner')).toEqual({ sent: 0, failed: 0, retrying: 0, nextRetryAt: undefined });
    senders.close();
    const kept = await listTokenMessages(t.features.tokenDelivery, { status: 'kept' });
    expect(kept.map((m) => m.channel).sort()).toEqual(['EMAIL', 'SMS', 'SMS']);
    expect(kept.every((m) => m.attempts === 0 && m.completed_at !== null)).toBe(true);
    expect(await listTokenMessages(t.features.tokenDelivery, { status: 'pending' })).toEqual([]);

    const session = await signIn(t, c.g);
    const page = await session.get(`/dashboard/patients/${c.patientId}/prescriptions/${byEmail.scid}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Kept, not sent: no SMS or e-mail service is configured (sandbox)');
  });
});
