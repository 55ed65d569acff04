// Where a token message shows: the prescription's portal page says when its send failed (and
// why), or that it was sent or kept; the token page links to its print view, which carries a
// QR code of the token link and the SCID, with print CSS, and answers 404 for a token it does
// not know.
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTokenMessageSenders, type TokenMessageSenders } from '../../src/token-delivery/token-message-senders.ts';
import { sendDueTokenMessages } from '../../src/token-delivery/token-message-runner.ts';
import { useTestApp } from '../given.ts';
import { signIn } from '../portal/portal-given.ts';
import { givenClinic, givenPrescription } from '../prescriptions/prescriptions-given.ts';
import { startTwilioFake, type TwilioFake } from './token-delivery-given.ts';

let twilio: TwilioFake;
const env: Record<string, string> = {};
beforeAll(async () => {
  twilio = await startTwilioFake();
  Object.assign(env, twilio.env(), { ERX_PUBLIC_URL: 'https://erx.example.org' });
});
const { t, c } = useTestApp({ env }, async (t) => ({ c: await givenClinic(t) }));
let senders: TokenMessageSenders;
beforeAll(() => {
  senders = openTokenMessageSenders(t.features.tokenDelivery.config, 2000);
});
afterAll(async () => {
  senders?.close();
  await twilio?.close();
});

const sendDue = () => sendDueTokenMessages(t.features.tokenDelivery, senders, 'pages-test');
const pathOf = (url: string) => new URL(url).pathname;

async function portalPageOf(scid: string): Promise<string> {
  const session = await signIn(t, c.g);
  const response = await session.get(`/dashboard/patients/${c.patientId}/prescriptions/${scid}`);
  expect(response.statusCode).toBe(200);
  return response.body;
}

describe("the prescription's portal page", () => {
  it('shows a failed send with why, and offers the reissue or the print view', async () => {
    const { scid } = await givenPrescription(t, c);
    twilio.failNext({ status: 400, code: 21211 });
    expect(await sendDue()).toMatchObject({ failed: 1 });
    const page = await portalPageOf(scid);
    expect(page).toContain('<strong role="alert">Not sent: Twilio answered 400 (code 21211)</strong>');
    expect(page).toContain('token-message-failed');
  });

  it('shows a message sent', async () => {
    const { scid } = await givenPrescription(t, c);
    expect(await sendDue()).toMatchObject({ sent: 1 });
    const page = await portalPageOf(scid);
    expect(page).toMatch(/token-message-sent">Sent \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(page).not.toContain('Not sent');
  });
});

describe('the print view of the token page', () => {
  it('is linked from the token page and shows a QR code of the token link and the SCID, with print CSS', async () => {
    const { url, scid } = await givenPrescription(t, c);
    const tokenPage = await t.app.inject({ method: 'GET', url: pathOf(url) });
    const printLink = /<a href="([^"]+)">Print view<\/a>/.exec(tokenPage.body)?.[1];
    expect(new URL(printLink!, url).toString()).toBe(`${url}/print`);
    const response = await t.app.inject({ method: 'GET', url: `${pathOf(url)}/print` });
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    expect(response.body).toContain(`SCID: <strong>${scid}</strong>`);
    expect(response.body).toContain(await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
    expect(response.body).toContain('<svg');
    expect(response.body).not.toContain('Jessica');
    const css = await t.app.inject({ method: 'GET', url: '/assets/portal.css' });
    expect(css.body).toMatch(/@media print \{[^}]*\.no-print/);
  });

  it.each(['AAAAAAAAAAAAAAAAAAAAAA', 'short', '%3Cscript%3E'])('answers 404 for the token %j', async (token) => {
    const response = await t.app.inject({ method: 'GET', url: `/tokens/${token}/print` });
    expect(response.statusCode).toBe(404);
    expect(response.body).not.toContain('<script>');
  });
});
