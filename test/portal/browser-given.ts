// The portal's browser tests drive Debian's Chromium through playwright-core (no browser is
// ever downloaded). Outside CI a machine without /usr/bin/chromium skips them, saying why in
// one line; in CI (CI=true) they must run, so a missing Chromium fails them. Every server a
// browser test starts listens on 127.0.0.1.
import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { IN_CI } from '../service-availability.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-background-networking', '--disable-component-update'];

/** Whether this machine runs the browser tests (see the header); throws in CI when it cannot. */
export function browserTestsRun(): boolean {
  if (fs.existsSync(CHROMIUM_PATH)) return true;
  if (IN_CI) throw new Error(`Chromium is missing at ${CHROMIUM_PATH}, and CI must run the portal's browser tests (.ci/run installs it)`);
  console.warn(`skipping the portal's browser tests: no Chromium at ${CHROMIUM_PATH} (install Debian's chromium package to run them)`);
  return false;
}

/** One browser per test file. launch() gives it a fresh temporary profile (user data dir), deleted on close. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A port nothing listens on now, on 127.0.0.1. The portal's address must be known before the
 * app is built (it is in every SSO link), so the test picks the port first and listens on it.
 */
export async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Asserts `image` is a PNG (signature, then an IHDR chunk) of at least the given size. */
export function expectPng(image: Buffer, least: { width: number; height: number }): void {
  expect(image.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(image.subarray(12, 16).toString('latin1')).toBe('IHDR');
  expect(image.readUInt32BE(16)).toBeGreaterThanOrEqual(least.width);
  expect(image.readUInt32BE(20)).toBeGreaterThanOrEqual(least.height);
}

/**
 * A screenshot of the page, checked to be a real PNG; written to docs/<name> (the pictures
 * of docs/portal/prescription-form.md) only when ERX_UPDATE_SCREENSHOTS=1, so ordinary runs leave the tree as it was.
 */
export async function takeScreenshot(page: Page, name: string): Promise<Buffer> {
  const image = await page.screenshot({ fullPage: true });
  expectPng(image, { width: 400, height: 300 });
  if (process.env.ERX_UPDATE_SCREENSHOTS === '1') fs.writeFileSync(path.resolve('docs', name), image);
  return image;
}
