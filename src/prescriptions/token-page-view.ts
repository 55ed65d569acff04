// What the token page shows (the portal renders it from token-page.eta): the SCID, the
// medicine and a QR code of the SCID (what a dispensing system scans), inline as SVG, so the
// page needs no script and no other request. The portal's prescription page shows the same
// QR code.
import QRCode from 'qrcode';
import { findTokenPage, type TokenPage } from './prescription-reads.ts';
import type { PrescriptionsContext } from './prescriptions-service.ts';

/** The medicine in one line: name, strength and form, as far as they are known. */
export function describeMedicine(item: { item_name: string; item_strength?: string | null; item_form?: string | null }): string {
  return [item.item_name, item.item_strength, item.item_form].filter((part): part is string => typeof part === 'string' && part !== '').join(' ');
}

/** An SVG of the SCID's QR code, made by the qrcode package from the SCID alone (18 letters and digits). */
export function renderScidQrCode(scid: string): Promise<string> {
  return QRCode.toString(scid, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

export interface TokenPageView extends TokenPage {
  medicine: string;
  /** Still dispensable. */
  active: boolean;
  qrSvg: string;
}

/** The token page at this address; 404 when there is none. */
export async function readTokenPage(ctx: PrescriptionsContext, token: string): Promise<TokenPageView> {
  const page = await findTokenPage(ctx, token);
  return { ...page, medicine: describeMedicine(page), active: page.status === 'Active', qrSvg: await renderScidQrCode(page.scid) };
}
