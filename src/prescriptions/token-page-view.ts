// What the token page shows (the portal renders it from token-page.eta): the SCID, the
// medicine and a QR code of the SCID (what a dispensing system scans), inline as SVG, so the
// page needs no script and no other request. The portal's prescription page shows the same
// QR code. Its print view carries a QR code of the token link instead, for a patient who has
// neither phone nor e-mail: the paper stands in for the message.
import QRCode from 'qrcode';
import { findTokenPage, type TokenPage } from './prescription-reads.ts';
import type { PrescriptionsContext } from './prescriptions-service.ts';
import { tokenPageUrl } from './prescription-view.ts';

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

/** An SVG of the token link's QR code (the print view's): the link is this service's URL and the random token. */
export function renderTokenLinkQrCode(url: string): Promise<string> {
  return QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

export interface TokenPrintView extends TokenPageView {
  tokenUrl: string;
  linkQrSvg: string;
}

/** The token page's print view, for a patient with neither phone nor e-mail: the SCID and a QR code of the token link. */
export async function readTokenPrintView(ctx: PrescriptionsContext, token: string): Promise<TokenPrintView> {
  const page = await readTokenPage(ctx, token);
  const tokenUrl = tokenPageUrl(ctx.publicUrl, token);
  return { ...page, tokenUrl, linkQrSvg: await renderTokenLinkQrCode(tokenUrl) };
}

/** The token page at this address; 404 when there is none. */
export async function readTokenPage(ctx: PrescriptionsContext, token: string): Promise<TokenPageView> {
  const page = await findTokenPage(ctx, token);
  return { ...page, medicine: describeMedicine(page), active: page.status === 'Active', qrSvg: await renderScidQrCode(page.scid) };
}
