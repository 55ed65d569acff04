// The PDF of a paper prescription: one A5 page for plain paper, printing every item of
// script-content-rules.ts that applies (script-items.ts says the words), the SCID as a Code
// 128 barcode when there is one, and the conformance id and erx's unique id in the document's
// metadata too (s41A asks for them "in the metadata"). Made with pdf-lib and bwip-js in the
// request, with no browser. The standard fonts print Latin-1 only: other letters are printed
// without their accents where they have one, else as "?" (see printable()). Both libraries are
// loaded on the first PDF, not at start: together they are megabytes of code every CLI command
// and server start would otherwise parse.
import type { PDFDocument, PDFFont, PDFPage } from 'pdf-lib';
import type { PrescriptionLegalContent } from './prescription-legal-content.ts';
import { ruleOf, type ScriptItem } from './script-content-rules.ts';
import { scriptItemsOf } from './script-items.ts';
import { packageExports } from '../platform/package-namespace.ts';

const MARGIN = 28;
const BODY_SIZE = 9;
const LINE = 12;

/** WinAnsi (the standard fonts' encoding) covers printable ASCII and Latin-1. */
const PRINTABLE = /^[\x20-\x7e\xa0-\xff]$/;

/** `text` as the standard fonts can print it: accents dropped where that helps, anything else "?". */
export function printable(text: string): string {
  return [...text.normalize('NFC')]
    .map((char) => (PRINTABLE.test(char) ? char : char.normalize('NFKD').replace(/\p{M}/gu, '')))
    .map((char) => ([...char].every((c) => PRINTABLE.test(c)) && char !== '' ? char : '?'))
    .join('');
}

interface Pen {
  page: PDFPage;
  regular: PDFFont;
  bold: PDFFont;
  /** The baseline of the next line. */
  y: number;
  width: number;
  grey: ReturnType<typeof import('pdf-lib').rgb>;
}

/** Words of `text` in lines no wider than `width` (a word wider than a line is cut). */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (font.widthOfTextAtSize(candidate, size) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = word;
    while (font.widthOfTextAtSize(line, size) > width && line.length > 1) {
      let cut = line.length - 1;
      while (cut > 1 && font.widthOfTextAtSize(line.slice(0, cut), size) > width) cut -= 1;
      lines.push(line.slice(0, cut));
      line = line.slice(cut);
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

function write(pen: Pen, text: string, options: { bold?: boolean; size?: number } = {}): void {
  const size = options.size ?? BODY_SIZE;
  const font = options.bold ? pen.bold : pen.regular;
  for (const line of wrap(printable(text), font, size, pen.width)) {
    pen.page.drawText(line, { x: MARGIN, y: pen.y, size, font });
    pen.y -= size + 3;
  }
}

/** One item as "Label: words", when it applies to this prescription. */
function writeItem(pen: Pen, items: Record<ScriptItem, string | null>, item: ScriptItem, options: { bold?: boolean } = {}): void {
  const words = items[item];
  if (words !== null) write(pen, `${ruleOf(item).label}: ${words}`, options);
}

function rule(pen: Pen): void {
  pen.y += 3;
  pen.page.drawLine({ start: { x: MARGIN, y: pen.y }, end: { x: MARGIN + pen.width, y: pen.y }, thickness: 0.5, color: pen.grey });
  pen.y -= LINE;
}

async function drawScidBarcode(doc: PDFDocument, pen: Pen, scid: string): Promise<void> {
  const { default: bwipjs } = await import('bwip-js');
  // Code 128 of the SCID alone; 3 pixels a module keeps the bars crisp when scaled to the page.
  const png = await bwipjs.toBuffer({ bcid: 'code128', text: scid, scale: 3, height: 12, includetext: false });
  const image = await doc.embedPng(png);
  const width = Math.min(pen.width, 240);
  const height = 42;
  pen.page.drawImage(image, { x: MARGIN, y: pen.y - height + LINE, width, height });
  pen.y -= height + 2;
  write(pen, `SCID: ${scid}`, { bold: true });
}

function setMetadata(doc: PDFDocument, content: PrescriptionLegalContent): void {
  const written = new Date(`${content.writtenOn}T00:00:00Z`);
  doc.setTitle(`Prescription ${content.uniqueId}`);
  doc.setSubject(`Paper prescription; conformance ID ${content.conformanceId ?? 'not recorded'}; prescription ID ${content.uniqueId}`);
  doc.setKeywords([`erx-prescription-id:${content.uniqueId}`, `conformance-id:${content.conformanceId ?? ''}`, ...(content.scid ? [`scid:${content.scid}`] : [])]);
  doc.setCreator('erx');
  doc.setProducer('erx (pdf-lib)');
  doc.setCreationDate(written);
  doc.setModificationDate(written);
}

/** The prescription's PDF (A5, one page). */
export async function renderPrescriptionPdf(content: PrescriptionLegalContent): Promise<Uint8Array> {
  const { PageSizes, PDFDocument, rgb, StandardFonts } = packageExports(await import('pdf-lib'));
  const doc = await PDFDocument.create();
  setMetadata(doc, content);
  const [width, height] = PageSizes.A5;
  const page = doc.addPage([width, height]);
  const fonts = { regular: await doc.embedFont(StandardFonts.Helvetica), bold: await doc.embedFont(StandardFonts.HelveticaBold) };
  const pen: Pen = { page, ...fonts, y: height - MARGIN - 8, width: width - 2 * MARGIN, grey: rgb(0.4, 0.4, 0.4) };
  const items = scriptItemsOf(content);
  page.drawText(content.benefit, { x: width - MARGIN - pen.bold.widthOfTextAtSize(content.benefit, 18), y: pen.y - 4, size: 18, font: pen.bold });
  write(pen, 'Prescription', { bold: true, size: 13 });
  pen.y -= 2;
  for (const item of ['prescriber_name', 'practice_address', 'practice_phone', 'prescriber_number', 'prescriber_hpii', 'organization_hpio'] as const) writeItem(pen, items, item);
  rule(pen);
  for (const item of ['patient_name', 'patient_date_of_birth', 'patient_address', 'patient_medicare_or_dva', 'date_written'] as const) writeItem(pen, items, item);
  rule(pen);
  writeItem(pen, items, 'medicine', { bold: true });
  for (const item of ['directions', 'quantity', 'repeats', 'repeat_interval', 'authority', 'permit_reference'] as const) writeItem(pen, items, item);
  if (content.annotations) write(pen, `Notes for the pharmacist: ${content.annotations}`);
  for (const item of ['brand_substitution', 'regulation_24'] as const) if (items[item] !== null) write(pen, items[item], { bold: true });
  pen.y -= LINE;
  write(pen, `${items.signature} ________________________________`);
  pen.y -= 4;
  if (content.scid) await drawScidBarcode(doc, pen, content.scid);
  pen.y = Math.min(pen.y, MARGIN + 3 * LINE);
  rule(pen);
  for (const item of ['conformance_id', 'unique_id'] as const) writeItem(pen, items, item);
  write(pen, `Prescriber script number: ${content.prescriberScriptNumber}`);
  return doc.save();
}
