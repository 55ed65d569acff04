// Each partner's one webhook endpoint (spec: registered out of band with the operator): its URL
// under the operating mode's rules, its secret (issued once, `whsec_` + standard base64 of 32
// random bytes, see webhook-signature.ts; stored encrypted, never shown again), rotation with an
// overlap during which both secrets sign, and disabling (deliveries wait until it is enabled).
import { readSubscribedEventTypes } from './webhook-event-subscriptions.ts';
import type { Kysely } from 'kysely';
import { auditRecords } from '../audit/index.ts';
import type { Database } from '../platform/db/database-schema.ts';
import { decryptSecret, encryptSecret } from '../platform/secrets.ts';
import { BlockedAddressError, assertPublicAddresses, resolveHost } from './webhook-host-resolution.ts';
import {
  countDeliveriesByStatus,
  effectiveUrlOf,
  findWebhookEndpoint,
  pendingChangeOf,
  updateWebhookEndpoint,
  type PendingEndpointChange,
  type WebhookEndpointRow,
} from './webhook-endpoints-store.ts';
import { webhookOutbox } from './webhook-outbox.ts';
import { generateWebhookSecret, isStandardWebhooksSecret } from './webhook-signature.ts';
import { webhookAction, WebhooksError, type WebhookActor, type WebhooksContext } from './webhooks-service.ts';

/** DESIGN decision 14: the old secret keeps signing for 24 h unless the operator says otherwise. */
export const DEFAULT_ROTATION_OVERLAP = '24h';
const MAX_URL_LENGTH = 2048;

/**
 * The URL as it will be stored, or a WebhooksError saying why not. Production: https only, and
 * the host must resolve only to public addresses (checked again at every connection). Sandbox
 * also allows http and any host, so a partner can test against a receiver on their machine.
 */
export async function checkWebhookUrl(ctx: WebhooksContext, url: string): Promise<string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhooksError(`webhook URL is not a valid URL: ${url}`);
  }
  if (url.length > MAX_URL_LENGTH) throw new WebhooksError(`webhook URL is longer than ${MAX_URL_LENGTH} characters`);
  if (ctx.mode === 'production' && parsed.protocol !== 'https:') throw new WebhooksError(`webhook URL must be https in production mode: ${url}`);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new WebhooksError(`webhook URL must be http(s): ${url}`);
  if (parsed.username || parsed.password) throw new WebhooksError('webhook URL must not carry a user name or password');
  if (ctx.guardAddresses) await checkPublicHost(ctx, parsed.hostname);
  return parsed.href;
}

async function checkPublicHost(ctx: WebhooksContext, hostname: string): Promise<void> {
  let addresses;
  try {
    addresses = await resolveHost(ctx.resolveHost, hostname);
  } catch (error) {
    throw new WebhooksError(`webhook URL host ${hostname} cannot be resolved (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    assertPublicAddresses(hostname, addresses);
  } catch (error) {
    if (error instanceof BlockedAddressError) throw new WebhooksError(`webhook URL refused ${ctx.mode === 'production' ? 'in production mode' : 'while erx listens beyond loopback'}: ${error.message}`);
    throw error;
  }
}

export interface PreparedEndpoint {
  url: string;
  /** Shown once to the operator, never stored in clear. */
  secret: string;
  secretEncrypted: string;
  issuedAt: string;
}

/** A checked URL and a new secret, for a partner being created with its endpoint (`erx partner create --webhook-url`). */
export async function prepareWebhookEndpoint(ctx: WebhooksContext, url: string): Promise<PreparedEndpoint> {
  const checked = await checkWebhookUrl(ctx, url);
  const secret = generateWebhookSecret();
  return { url: checked, secret, secretEncrypted: encryptSecret(secret, ctx.secretKey), issuedAt: ctx.clock.now().toISOString() };
}

async function requirePartner(db: Kysely<Database>, partnerId: string): Promise<WebhookEndpointRow> {
  const row = await findWebhookEndpoint(db, partnerId);
  if (!row) throw new WebhooksError(`partner ${partnerId} not found`);
  return row;
}

export interface EndpointSet {
  partner_id: string;
  webhook_url: string;
  previous_url: string | null;
  /** Only when this registration issued the partner's first secret; null ever after. */
  webhook_secret: string | null;
}

/** Registers or changes the partner's endpoint; the first registration issues its secret. */
export async function setWebhookEndpoint(ctx: WebhooksContext, partnerId: string, url: string, by: WebhookActor = 'operator'): Promise<EndpointSet> {
  await requirePartner(ctx.db, partnerId);
  const prepared = await prepareWebhookEndpoint(ctx, url);
  return ctx.unitOfWork.run(async ({ trx, record }) => {
    const row = await requirePartner(trx, partnerId);
    const issuing = row.webhook_secret_encrypted === null;
    await updateWebhookEndpoint(trx, partnerId, {
      webhook_url: prepared.url,
      // Takes effect at once, and replaces a partner's change still waiting (webhook-endpoint-change.ts).
      webhook_pending_url: null,
      webhook_pending_url_at: null,
      ...(issuing ? { webhook_secret_encrypted: prepared.secretEncrypted, webhook_secret_issued_at: prepared.issuedAt } : {}),
    });
    record(webhookOutbox, { wake: partnerId }); // deliveries that waited for an endpoint
    record(auditRecords, { action: webhookAction(by, 'webhook_endpoint_set'), detail: { partnerId } });
    return { partner_id: partnerId, webhook_url: prepared.url, previous_url: row.webhook_url, webhook_secret: issuing ? prepared.secret : null };
  });
}

export interface SecretRotated {
  partner_id: string;
  webhook_secret: string;
  /** Until then deliveries also carry the old secret's signature; null without an overlap. */
  previous_secret_valid_until: string | null;
}

/** Issues a new secret; the current one keeps signing (second v1) for `overlapMs`. */
export async function rotateWebhookSecret(ctx: WebhooksContext, partnerId: string, overlapMs: number, by: WebhookActor = 'operator'): Promise<SecretRotated> {
  const secret = generateWebhookSecret();
  return ctx.unitOfWork.run(async ({ trx, record }) => {
    const row = await requirePartner(trx, partnerId);
    if (row.webhook_secret_encrypted === null) {
      throw new WebhooksError(`partner ${partnerId} has no webhook endpoint yet; register one with erx webhooks set-endpoint`);
    }
    const now = ctx.clock.now();
    const validUntil = overlapMs > 0 ? new Date(now.getTime() + overlapMs).toISOString() : null;
    await updateWebhookEndpoint(trx, partnerId, {
      webhook_secret_encrypted: encryptSecret(secret, ctx.secretKey),
      webhook_secret_issued_at: now.toISOString(),
      webhook_previous_secret_encrypted: validUntil ? row.webhook_secret_encrypted : null,
      webhook_previous_secret_expires_at: validUntil,
    });
    record(auditRecords, { action: webhookAction(by, 'webhook_secret_rotate'), detail: { partnerId } });
    return { partner_id: partnerId, webhook_secret: secret, previous_secret_valid_until: validUntil };
  });
}

export interface EndpointView {
  partner_id: string;
  webhook_url: string | null;
  enabled: boolean;
  secret_issued_at: string | null;
  /** Whether deliveries carry Standard Webhooks headers: false for a secret issued before them (rotate to upgrade). */
  standard_webhooks: boolean;
  previous_secret_valid_until: string | null;
  deliveries: { pending: number; delivered: number; failed: number };
  /** The event types the endpoint receives (webhook-event-subscriptions.ts). */
  event_types: string[];
  /** A partner's change of URL still waiting (webhook_url is where deliveries go until then). */
  pending_change: PendingEndpointChange | null;
}

/** What an operator may see of an endpoint: never a secret. */
export async function showWebhookEndpoint(ctx: WebhooksContext, partnerId: string): Promise<EndpointView> {
  const row = await requirePartner(ctx.db, partnerId);
  const counts = await countDeliveriesByStatus(ctx.db, partnerId);
  const previousUntil = row.webhook_previous_secret_expires_at;
  const now = ctx.clock.now();
  return {
    partner_id: partnerId,
    webhook_url: effectiveUrlOf(row, now),
    enabled: row.webhook_enabled === 1,
    secret_issued_at: row.webhook_secret_issued_at,
    standard_webhooks: row.webhook_secret_encrypted !== null && isStandardWebhooksSecret(decryptSecret(row.webhook_secret_encrypted, ctx.secretKey)),
    previous_secret_valid_until: previousUntil && previousUntil > now.toISOString() ? previousUntil : null,
    deliveries: { pending: counts.pending ?? 0, delivered: counts.delivered ?? 0, failed: counts.failed ?? 0 },
    event_types: [...(await readSubscribedEventTypes(ctx.db, partnerId))],
    pending_change: pendingChangeOf(row, now),
  };
}

/** Disabled: deliveries stay pending and none is attempted; enabled again: they go out. */
export async function setWebhookEndpointEnabled(ctx: WebhooksContext, partnerId: string, enabled: boolean): Promise<{ partner_id: string; enabled: boolean; changed: boolean }> {
  const changed = await ctx.unitOfWork.run(async ({ trx, record }) => {
    const row = await requirePartner(trx, partnerId);
    record(auditRecords, { action: enabled ? 'admin.webhook_endpoint_enable' : 'admin.webhook_endpoint_disable', detail: { partnerId } });
    if ((row.webhook_enabled === 1) === enabled) return false;
    await updateWebhookEndpoint(trx, partnerId, { webhook_enabled: enabled ? 1 : 0 });
    if (enabled) record(webhookOutbox, { wake: partnerId });
    return true;
  });
  return { partner_id: partnerId, enabled, changed };
}

/** The secrets a delivery made at `now` is signed with: the current one, then the previous during its overlap. */
export function signingSecretsOf(ctx: WebhooksContext, row: WebhookEndpointRow, now: Date): string[] {
  if (!row.webhook_secret_encrypted) return [];
  const secrets = [decryptSecret(row.webhook_secret_encrypted, ctx.secretKey)];
  const until = row.webhook_previous_secret_expires_at;
  if (row.webhook_previous_secret_encrypted && until && until > now.toISOString()) {
    secrets.push(decryptSecret(row.webhook_previous_secret_encrypted, ctx.secretKey));
  }
  return secrets;
}

const DURATION_UNITS_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_OVERLAP_MS = 30 * 86_400_000;

/** `30m`, `24h`, `7d`, `0s`... up to 30 days, in ms. */
export function parseOverlap(text: string): number {
  const match = /^(\d{1,6})([smhd])$/.exec(text.trim());
  const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2]!]! : NaN;
  if (!(ms <= MAX_OVERLAP_MS)) throw new WebhooksError(`--overlap must be a duration such as 30m, 24h or 7d (at most 30d), got "${text}"`);
  return ms;
}
