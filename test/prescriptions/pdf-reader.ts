// Reads a PDF back as a pharmacist's tools would: its text (pdf-parse), its document metadata,
// and the Code 128 barcodes on its page, found by rendering the page to pixels (pdf-parse's
// screenshot, decoded by @napi-rs/canvas) and scanning them with ZXing. Nothing here knows how
// the PDF was made: a barcode that encodes anything else, or is not printed legibly, fails.
import { createCanvas, loadImage } from '@napi-rs/canvas';
import zxing from '@zxing/library';
import { PDFParse } from 'pdf-parse';

export interface ReadPdf {
  pages: number;
  /** The text of every page, runs of white space as one space. */
  text: string;
  info: Record<string, unknown>;
  /** Each page's size in points (width, height). */
  sizes: Array<{ width: number; height: number }>;
}

export async function readPdf(bytes: Uint8Array): Promise<ReadPdf> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    const text = await parser.getText();
    const info = await parser.getInfo();
    const shots = await parser.getScreenshot({ scale: 1, imageBuffer: false, imageDataUrl: false });
    return {
      pages: text.total,
      text: text.text.replace(/\s+/g, ' '),
      info: info.info as Record<string, unknown>,
      sizes: shots.pages.map((page) => ({ width: page.width, height: page.height })),
    };
  } finally {
    await parser.destroy();
  }
}

/** The text of the Code 128 barcode on page `pageNumber` (1-based), rendered at `scale`; throws when none is found. */
export async function decodeCode128(bytes: Uint8Array, pageNumber = 1, scale = 2): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    const shot = await parser.getScreenshot({ partial: [pageNumber], scale, imageBuffer: true, imageDataUrl: false });
    const image = await loadImage(Buffer.from(shot.pages[0]!.data));
    const canvas = createCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const { data, width, height } = context.getImageData(0, 0, image.width, image.height);
    const luminance = new Uint8ClampedArray(width * height);
    for (let i = 0; i < width * height; i++) luminance[i] = (data[4 * i]! * 299 + data[4 * i + 1]! * 587 + data[4 * i + 2]! * 114) / 1000;
    const bitmap = new zxing.BinaryBitmap(new zxing.HybridBinarizer(new zxing.RGBLuminanceSource(luminance, width, height)));
    const hints = new Map<zxing.DecodeHintType, unknown>([
      [zxing.DecodeHintType.POSSIBLE_FORMATS, [zxing.BarcodeFormat.CODE_128]],
      [zxing.DecodeHintType.TRY_HARDER, true],
    ]);
    return new zxing.MultiFormatReader().decode(bitmap, hints).getText();
  } finally {
    await parser.destroy();
  }
}
