// Factories for the MFA tests: the test's own RFC 6238 code (HMAC-SHA-1 over the step, dynamic
// truncation), written here from the RFC rather than imported from src/, so a shared mistake
// cannot pass; reading the key an enrolment page shows; enrolling and presenting TOTP over
// app.inject as a browser without JavaScript does.
import { createHmac } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { GivenIntegration } from '../given.ts';
import { csrfOf, signIn, type PortalClient } from '../portal/portal-given.ts';
import type { TestApp } from '../test-app.ts';

function decodeBase32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The 6-digit code of `secret` (base32) for the 30-second step `stepOffset` steps from `at`. */
export function totpCode(secret: string, at: Date, stepOffset = 0): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at.getTime() / 30_000) + stepOffset));
  const mac = createHmac('sha1', decodeBase32(secret)).update(counter).digest();
  const offset = mac[19]! & 15;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** The authenticator key an enrolment page shows. */
export function totpSecretOn(html: string): string {
  const match = /id="totp-secret"[^>]*>([A-Z2-7]+)</.exec(html);
  if (!match) throw new Error(`no authenticator key on the page:\n${html.slice(0, 800)}`);
  return match[1]!;
}

/** Enrols TOTP for the client's user from the factor page of `frame`; the key and the confirming answer. */
export async function enrolTotp(t: TestApp, client: PortalClient, frame = 'dashboard'): Promise<{ secret: string; confirmed: LightMyRequestResponse }> {
  const page = await client.get(`/${frame}/mfa`);
  if (page.statusCode !== 200) throw new Error(`GET /${frame}/mfa: ${page.statusCode} ${page.body.slice(0, 300)}`);
  const secret = totpSecretOn(page.body);
  const confirmed = await client.post(`/${frame}/mfa/enrol/totp`, { _csrf: csrfOf(page.body), code: totpCode(secret, t.clock.now()), name: 'Phone' });
  if (confirmed.statusCode !== 303) throw new Error(`enrolment refused: ${confirmed.statusCode} ${confirmed.body.slice(0, 500)}`);
  return { secret, confirmed };
}

/** Presents a TOTP code on the factor page (the step `stepOffset` from now); the answer. */
export async function presentTotp(t: TestApp, client: PortalClient, secret: string, options: { frame?: string; stepOffset?: number; code?: string; stepUp?: boolean } = {}): Promise<LightMyRequestResponse> {
  const frame = options.frame ?? 'dashboard';
  const page = await client.get(`/${frame}/mfa${options.stepUp ? '?step_up=1' : ''}`);
  const code = options.code ?? totpCode(secret, t.clock.now(), options.stepOffset ?? 0);
  return client.post(`/${frame}/mfa/totp`, { _csrf: csrfOf(page.body), code, ...(options.stepUp ? { step_up: '1' } : {}) });
}

/** A signed-in session of `userId` that enrolled TOTP (so it passed the gate); with its key. */
export async function signInEnrolled(t: TestApp, g: GivenIntegration, userId: string, redirectPath = '/dashboard'): Promise<PortalClient & { secret: string }> {
  const client = await signIn(t, g, redirectPath, userId);
  const { secret } = await enrolTotp(t, client);
  return { ...client, secret };
}
