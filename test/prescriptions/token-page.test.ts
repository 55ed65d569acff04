// The token page a prescription's url points to: served by the portal context at the root
// (outside the API's base path), public, HTML with every value escaped, and a QR code of the SCID.
import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPrescription, prescriptionsClient } from './prescriptions-given.ts';

// Mounted under a prefix, and reached at a public URL of its own, like a real deployment.
const { t, c } = useTestApp({ env: { ERX_BASE_PATH: '/external', ERX_PUBLIC_URL: 'https://erx.example.org' } }, async (t) => ({ c: await givenClinic(t) }));

const pathOf = (url: string) => new URL(url).pathname;

describe('GET /tokens/{token}', () => {
  it('is the url of the prescription, at the root of the public URL, outside the base path', async () => {
    const { url } = await givenPrescription(t, c);
    expect(url).toMatch(/^https:\/\/erx\.example\.org\/tokens\/[A-Za-z0-9_-]{22}$/);
    expect((await t.app.inject({ method: 'GET', url: pathOf(url) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/external${pathOf(url)}` })).statusCode).toBe(404);
  });

  it('shows the SCID, the medicine and a QR code of the SCID, without credentials, kept out of caches', async () => {
    const { url, scid } = await givenPrescription(t, c);
    const response = await t.app.inject({ method: 'GET', url: pathOf(url) });
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers).toMatchObject({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    expect(response.body).toContain(`SCID: <strong>${scid}</strong>`);
    expect(response.body).toContain('Medicine: Amoxicillin 500 mg Capsule');
    expect(response.body).toContain('Quantity: 20; repeats: 1');
    expect(response.body).toContain(await QRCode.toString(scid, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
    expect(response.body).not.toContain('Jessica');
  });

  it('escapes every value it shows', async () => {
    const { url } = await givenPrescription(t, c, { item_name: `<script>alert("x")</script> & 'co'`, item_form: '<b>Tablet</b>' });
    const body = (await t.app.inject({ method: 'GET', url: pathOf(url) })).body;
    expect(body).toContain('Medicine: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39; 500 mg &lt;b&gt;Tablet&lt;/b&gt;');
    expect(body).not.toContain('<script>');
    expect(body).not.toContain('<b>');
  });

  it('says when the prescription can no longer be dispensed', async () => {
    const { url, scid } = await givenPrescription(t, c);
    await prescriptionsClient(t, c).change('cancel', scid);
    expect((await t.app.inject({ method: 'GET', url: pathOf(url) })).body).toContain('This prescription is Cancelled and can no longer be dispensed.');
  });

  it.each(['AAAAAAAAAAAAAAAAAAAAAA', 'short', '%3Cscript%3E'])('answers a 404 page for the token %j', async (token) => {
    const response = await t.app.inject({ method: 'GET', url: `/tokens/${token}` });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('There is no prescription token at this address');
    expect(response.body).not.toContain('<script>');
  });
});
