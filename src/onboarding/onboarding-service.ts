// Operator actions that bring a partner and an organization together: register a partner,
// create an organization, enable the partner for the organization. Secrets are returned
// once and stored only as hashes (a webhook endpoint's secret is the webhooks feature's).
import type { Kysely } from 'kysely';
import { auditRecords } from '../audit/index.ts';
import { isValidHpio } from '../identifiers/index.ts';
import { isScope, SCOPES, type Scope } from '../auth/index.ts';
import type { Mode } from '../config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import { newId, PARTNER_ID_PATTERN } from '../platform/ids.ts';
import { generateSecret, hashSecret } from '../platform/secrets.ts';
import type { Deps } from '../deps.ts';
import type { UsersContext } from '../users/index.ts';
import { prepareWebhookEndpoint, type WebhooksContext } from '../webhooks/index.ts';
import { findOrganization, findPartner, insertOrganization, insertPartner, insertPartnerEnablement, updatePartnerFrameOrigins } from './onboarding-store.ts';

/** A mistake in what the operator asked for; the CLI prints it as one line. */
export class OnboardingError extends Error {
  override name = 'OnboardingError';
}

export interface OnboardingContext {
  db: Kysely<Database>;
  clock: Clock;
  secretKey: Buffer;
  /** Where the API is reached from outside (`${publicUrl}${basePath}`), for printed examples. */
  apiBaseUrl: string;
  /** A partner created with a webhook URL gets its endpoint as `erx webhooks set-endpoint` would register it. */
  webhooks: WebhooksContext;
  /** The operator's user tools create and show users through the users feature. */
  users: UsersContext;
  /** Production accepts only https frame origins. */
  mode: Mode;
  /** Every change commits through it, with the records it leaves. */
  unitOfWork: UnitOfWork;
}

export function createOnboardingContext(
  deps: Pick<Deps, 'database' | 'clock' | 'secretKey' | 'config'>,
  features: { webhooks: WebhooksContext; users: UsersContext; unitOfWork: UnitOfWork },
): OnboardingContext {
  return {
    db: deps.database,
    clock: deps.clock,
    secretKey: deps.secretKey,
    apiBaseUrl: `${deps.config.publicUrl}${deps.config.basePath}`,
    webhooks: features.webhooks,
    users: features.users,
    mode: deps.config.mode,
    unitOfWork: features.unitOfWork,
  };
}

export interface PartnerCreated {
  partner_id: string;
  partner_secret: string;
  webhook_url: string | null;
  webhook_secret: string | null;
}

export async function createPartner(
  ctx: OnboardingContext,
  input: { partnerId: string; name?: string | undefined; webhookUrl?: string | undefined },
): Promise<PartnerCreated> {
  if (!PARTNER_ID_PATTERN.test(input.partnerId)) {
    throw new OnboardingError(`partner_id must be a lowercase slug (a-z, 0-9, hyphens), got "${input.partnerId}"`);
  }
  const endpoint = input.webhookUrl ? await prepareWebhookEndpoint(ctx.webhooks, input.webhookUrl) : undefined;
  if (await findPartner(ctx.db, input.partnerId)) throw new OnboardingError(`partner ${input.partnerId} already exists`);
  const partnerSecret = generateSecret();
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    await insertPartner(trx, {
      id: input.partnerId,
      name: input.name ?? input.partnerId,
      secret_hash: hashSecret(partnerSecret),
      webhook_url: endpoint?.url ?? null,
      webhook_secret_encrypted: endpoint?.secretEncrypted ?? null,
      webhook_secret_issued_at: endpoint?.issuedAt ?? null,
      created_at: ctx.clock.now().toISOString(),
    });
    record(auditRecords, { action: 'admin.partner_create', detail: { partnerId: input.partnerId } });
  });
  return { partner_id: input.partnerId, partner_secret: partnerSecret, webhook_url: endpoint?.url ?? null, webhook_secret: endpoint?.secret ?? null };
}

export interface OrganizationCreated {
  organization_id: string;
  organization_secret: string;
  name: string;
  hpio: string | null;
  allowed_scopes: Scope[];
}

function parseScopes(scopes: string[] | undefined): Scope[] {
  if (!scopes || scopes.length === 0) return [...SCOPES];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new OnboardingError(`unknown scope ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

export async function createOrganization(
  ctx: OnboardingContext,
  input: { name: string; hpio?: string | undefined; scopes?: string[] | undefined },
): Promise<OrganizationCreated> {
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new OnboardingError('organization name must be 1 to 200 characters');
  if (input.hpio !== undefined && !isValidHpio(input.hpio)) {
    throw new OnboardingError(`HPI-O must be 16 digits starting 800362 with a valid check digit, got "${input.hpio}"`);
  }
  const allowedScopes = parseScopes(input.scopes);
  const organizationId = newId();
  const organizationSecret = generateSecret();
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    await insertOrganization(trx, {
      id: organizationId,
      name,
      hpio: input.hpio ?? null,
      allowed_scopes: JSON.stringify(allowedScopes),
      secret_hash: hashSecret(organizationSecret),
      created_at: ctx.clock.now().toISOString(),
    });
    record(auditRecords, { action: 'admin.organization_create', organizationId, hpio: input.hpio ?? null });
  });
  return { organization_id: organizationId, organization_secret: organizationSecret, name, hpio: input.hpio ?? null, allowed_scopes: allowedScopes };
}

export async function enablePartnerForOrganization(
  ctx: OnboardingContext,
  input: { organizationId: string; partnerId: string },
): Promise<{ organization_id: string; partner_id: string; already_enabled: boolean }> {
  const organizationId = input.organizationId.toLowerCase();
  if (!(await findOrganization(ctx.db, organizationId))) throw new OnboardingError(`organization ${input.organizationId} not found`);
  if (!(await findPartner(ctx.db, input.partnerId))) throw new OnboardingError(`partner ${input.partnerId} not found`);
  const inserted = await ctx.unitOfWork.run(async ({ trx, record }) => {
    record(auditRecords, { action: 'admin.partner_enable', organizationId, detail: { partnerId: input.partnerId } });
    return insertPartnerEnablement(trx, { organization_id: organizationId, partner_id: input.partnerId, enabled_at: ctx.clock.now().toISOString() });
  });
  return { organization_id: organizationId, partner_id: input.partnerId, already_enabled: !inserted };
}

/** Most origins one partner may list; a CSP header stays short. */
export const MAX_FRAME_ORIGINS = 20;

/** A DNS name (letters, digits, hyphens; dot-separated labels), an IPv4 address, or an IPv6 one in brackets. */
const ORIGIN_HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])$/;

/** `text` as an exact origin (scheme, host, optional port; lower case), or why it is not one. */
function readFrameOrigin(text: string, mode: Mode): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  // The URL parser takes hosts such as `a.example;x`, which would end up inside the CSP header.
  const bare = url !== undefined && url.origin !== 'null' && ORIGIN_HOST.test(url.hostname) && url.pathname === '/' && !/[?#*@]/.test(text) && !/\/[^/]/.test(text.replace(/^[a-z]+:\/\//i, ''));
  if (!url || !bare) {
    throw new OnboardingError(`frame origin must be an origin like https://app.example.com (scheme, host, optional port; no path or wildcard), got "${text}"`);
  }
  const allowed = mode === 'production' ? ['https:'] : ['https:', 'http:'];
  if (!allowed.includes(url.protocol)) throw new OnboardingError(`frame origin must use ${allowed.join(' or ')} in ${mode} mode, got "${text}"`);
  return url.origin;
}

/**
 * Replaces the origins allowed to frame the portal for this partner's users (the portal's
 * Content-Security-Policy frame-ancestors). An empty list refuses framing altogether.
 */
export async function setPartnerFrameOrigins(ctx: OnboardingContext, partnerId: string, origins: string[]): Promise<{ partner_id: string; frame_origins: string[] }> {
  if (origins.length > MAX_FRAME_ORIGINS) throw new OnboardingError(`at most ${MAX_FRAME_ORIGINS} frame origins, got ${origins.length}`);
  const normalised = [...new Set(origins.map((origin) => readFrameOrigin(origin, ctx.mode)))];
  await ctx.unitOfWork.run(async ({ trx, record }) => {
    if (!(await updatePartnerFrameOrigins(trx, partnerId, JSON.stringify(normalised)))) throw new OnboardingError(`partner ${partnerId} not found`);
    record(auditRecords, { action: 'admin.partner_frame_origins', detail: { partnerId, count: normalised.length } });
  });
  return { partner_id: partnerId, frame_origins: normalised };
}
