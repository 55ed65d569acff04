// The token page as HTML: what a patient or pharmacy opens from the delivered link. It shows
// the SCID, the medicine and a QR code of the SCID (what a dispensing system scans), inline
// as SVG, so the page needs no script and no other request. Every value is escaped.
import QRCode from 'qrcode';
import { escapeHtml } from '../portal/portal-context.ts';
import type { TokenPage } from './prescription-reads.ts';

function medicineOf(page: TokenPage): string {
  return [page.item_name, page.item_strength, page.item_form].filter((part): part is string => part !== null).join(' ');
}

export async function renderTokenPage(page: TokenPage): Promise<string> {
  // The SVG comes from the qrcode package, built from the SCID alone (18 letters and digits).
  const qr = await QRCode.toString(page.scid, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  const active = page.status === 'Active';
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Electronic prescription ${escapeHtml(page.scid)}</title></head>`,
    '<body><main>',
    '<h1>Electronic prescription</h1>',
    `<p>SCID: <strong>${escapeHtml(page.scid)}</strong></p>`,
    `<p>Medicine: ${escapeHtml(medicineOf(page))}</p>`,
    `<p>Quantity: ${escapeHtml(page.quantity)}; repeats: ${escapeHtml(page.repeats)}</p>`,
    active ? '' : `<p><strong>This prescription is ${escapeHtml(page.status)} and can no longer be dispensed.</strong></p>`,
    `<figure aria-label="QR code of SCID ${escapeHtml(page.scid)}" style="max-width:16rem">${qr}</figure>`,
    '<p><small>Sandbox: nothing was sent; this page stands in for the message.</small></p>',
    '</main></body></html>',
  ]
    .filter((line) => line !== '')
    .join('\n');
}
