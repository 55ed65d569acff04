// The dispatcher's steps (webhook-dispatcher.ts runs them): claim an endpoint's due deliveries
// under a lease, make one attempt of a claimed delivery, and record its outcome. No transaction
// is open during the HTTP call: the claim commits first, and the outcome is written afterwards
// in its own short transaction, only if the claim's fencing token is still current.
import type { Clock } from '../platform/clock.ts';
import { hasLeaseForAttempt as leaseLeftForAttempt, LEASE_MARGIN_MS, leaseDurationMs as leaseDurationOf } from '../platform/delivery/index.ts';
import { decryptSecret } from '../platform/secrets.ts';
import { traceWebhookAttempt } from './webhook-attempt-span.ts';
import { nextStepAfter, type NextStep, type OutcomeClass } from './webhook-delivery-rules.ts';
import { effectiveUrlOf, type WebhookEndpointRow } from './webhook-endpoints-store.ts';
import { createWebhookHttpClient, type AttemptResult, type WebhookHttpClient } from './webhook-http-attempt.ts';
import { deliveryAuthHeadersWith, signingKeyOf, type WebhookSigningKey } from './webhook-signature.ts';
import type { WebhooksContext } from './webhooks-service.ts';
import { endWithdrawnDeliveries, fencedKey, findPartnersWithDueDeliveries, releaseDeliveryLeases, type ClaimedDeliveryWithBody, type FencedOutcomeRow } from './webhooks-store.ts';

/**
 * A lease (the toolkit's arithmetic, platform/delivery/delivery-lease.ts) covers a short wait in
 * the dispatcher's queue of claimed deliveries (at most about one attempt: the queue is no
 * longer than the endpoint's window), the attempt itself, and a margin to write the outcome. A
 * process that has not written it by then is taken for dead and the delivery is claimed again
 * (its stale outcome is refused by the fencing token).
 */
export { LEASE_MARGIN_MS };

export function leaseDurationMs(ctx: WebhooksContext): number {
  return leaseDurationOf(ctx.settings.timeoutMs);
}

/** An endpoint as a batch of attempts uses it, its secrets decrypted and made into keys once. */
export interface DeliveryEndpoint {
  partnerId: string;
  url: string;
  secret: WebhookSigningKey;
  previousSecret: WebhookSigningKey | undefined;
  /** ISO time the previous secret stops signing. */
  previousSecretUntil: string | undefined;
}

export interface ClaimedDelivery {
  deliveryId: string;
  eventId: string;
  partnerId: string;
  /** The number this attempt will have (1 to 3). */
  attempt: number;
  fencingToken: number;
  /** When the lease ends (epoch ms). */
  leaseExpiresAt: number;
  /** The stored envelope, sent byte for byte. */
  body: string;
  /** For the first attempt of an event's own delivery: when the event was written (epoch ms), for the commit-to-first-answer latency. */
  firstAttemptOfEventSince: number | undefined;
  eventType: string;
  /** Of the request that committed the event (traces were on then): the attempt's span links to it. */
  traceparent: string | null;
}

export interface ClaimBatch {
  /** Undefined when the endpoint is disabled or not registered: nothing was claimed. */
  endpoint: DeliveryEndpoint | undefined;
  deliveries: ClaimedDelivery[];
}

/** The HTTP client deliveries (and pings) go out through, with the SSRF guard in production. */
export function openWebhookSender(ctx: WebhooksContext): WebhookHttpClient {
  return createWebhookHttpClient({ guardAddresses: ctx.guardAddresses, resolveHost: ctx.resolveHost, clock: ctx.clock });
}

/** The endpoint deliveries go to now (a partner's change of URL once its delay is over), if it can receive them. */
export function deliveryEndpointOf(ctx: WebhooksContext, row: WebhookEndpointRow): DeliveryEndpoint | undefined {
  const url = effectiveUrlOf(row, ctx.clock.now());
  if (row.webhook_enabled !== 1 || !url || !row.webhook_secret_encrypted) return undefined;
  return signingEndpointAt(ctx, row, url);
}

/** `url` with the partner's secrets (it has one): where a delivery, a ping or a notice goes. */
export function signingEndpointAt(ctx: WebhooksContext, row: WebhookEndpointRow, url: string): DeliveryEndpoint {
  const hasPrevious = row.webhook_previous_secret_encrypted && row.webhook_previous_secret_expires_at;
  return {
    partnerId: row.id,
    url,
    secret: signingKeyOf(decryptSecret(row.webhook_secret_encrypted!, ctx.secretKey)),
    previousSecret: hasPrevious ? signingKeyOf(decryptSecret(row.webhook_previous_secret_encrypted!, ctx.secretKey)) : undefined,
    previousSecretUntil: hasPrevious ? row.webhook_previous_secret_expires_at! : undefined,
  };
}

/**
 * Leases up to `limit` of the partner's due deliveries to `leaseOwner`, for one attempt each,
 * if its endpoint can receive them now (the store does it its database's fastest way). A
 * delivery whose organization no longer enables the partner is not sent: it ends failed with
 * `ended_because` at once (issue 38 item 5), whoever asked for it, so a withdrawn partner's
 * endpoint receives nothing more of that organization. Only a delivery already in flight when
 * the withdrawal commits can still arrive.
 */
export async function claimEndpointDeliveries(ctx: WebhooksContext, partnerId: string, limit: number, leaseOwner: string): Promise<ClaimBatch> {
  const now = ctx.clock.now();
  const leaseExpiresAt = now.getTime() + leaseDurationMs(ctx);
  const claim = { partnerId, now: now.toISOString(), limit, leaseOwner, leaseExpiresAt: new Date(leaseExpiresAt).toISOString() };
  const toDelivery = (row: ClaimedDeliveryWithBody): ClaimedDelivery => ({
    deliveryId: row.id,
    eventId: row.event_id,
    partnerId,
    attempt: Number(row.attempts_made) + 1,
    fencingToken: Number(row.fencing_token),
    leaseExpiresAt,
    body: row.body,
    firstAttemptOfEventSince: row.reason === 'event' && Number(row.attempts_made) === 0 ? Date.parse(row.created_at) : undefined,
    eventType: row.event_type,
    traceparent: row.traceparent,
  });
  const { endpoint, claimed } = await ctx.store.claimEndpointDeliveries(ctx.db, claim, (row) => deliveryEndpointOf(ctx, row));
  const withdrawn = claimed.filter((row) => row.withdrawn === 1);
  if (withdrawn.length === 0) return { endpoint, deliveries: claimed.map(toDelivery) };
  await endWithdrawnDeliveries(ctx.db, withdrawn.map((row) => ({ id: row.id, fencingToken: Number(row.fencing_token) })), claim.now);
  ctx.logger.warn({ partnerId, eventIds: withdrawn.map((row) => row.event_id) }, 'webhook deliveries ended unsent: their organization no longer enables the partner');
  return { endpoint, deliveries: claimed.filter((row) => row.withdrawn !== 1).map(toDelivery) };
}

/** Whether enough of the lease is left to make the attempt and record it before it ends. */
export function hasLeaseForAttempt(ctx: WebhooksContext, delivery: ClaimedDelivery): boolean {
  return leaseLeftForAttempt(delivery.leaseExpiresAt, ctx.clock.now().getTime(), ctx.settings.timeoutMs);
}

/** Gives back claimed deliveries that will not be attempted (stopping, or too little lease left): they are due again at once. */
export async function releaseClaimedDeliveries(ctx: WebhooksContext, deliveries: readonly ClaimedDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await ctx.db.transaction().execute((trx) => releaseDeliveryLeases(trx, deliveries.map((d) => ({ id: d.deliveryId, fencingToken: d.fencingToken }))));
}

/** Partners with deliveries due now that nobody holds (new, retries, expired leases). */
export async function findEndpointsWithDueDeliveries(ctx: WebhooksContext): Promise<string[]> {
  return findPartnersWithDueDeliveries(ctx.db, ctx.clock.now().toISOString());
}

/** The signature headers of a delivery of `eventId` sent now: both secrets during a rotation's overlap. */
export function signDelivery(endpoint: DeliveryEndpoint, eventId: string, body: string, clock: Clock): Record<string, string> {
  const now = clock.now();
  const keys = [endpoint.secret];
  if (endpoint.previousSecret && endpoint.previousSecretUntil! > now.toISOString()) keys.push(endpoint.previousSecret);
  return deliveryAuthHeadersWith(eventId, body, keys, Math.floor(now.getTime() / 1000));
}

export interface AttemptReport {
  delivery: ClaimedDelivery;
  outcome: OutcomeClass;
  statusCode: number | null;
  step: NextStep;
  /** False when a later claim had taken the delivery over: this outcome was not written. */
  recorded: boolean;
  /** For a retry: when the next attempt is due. */
  retryAt: Date | undefined;
}

/** Makes the claimed attempt, signed as it is sent. Never throws: a failure is an outcome class. */
export async function sendClaimedAttempt(ctx: WebhooksContext, sender: WebhookHttpClient, endpoint: DeliveryEndpoint, delivery: ClaimedDelivery): Promise<AttemptResult> {
  const send = () => sender.send({ url: endpoint.url, body: delivery.body, authHeaders: signDelivery(endpoint, delivery.eventId, delivery.body, ctx.clock), timeoutMs: ctx.settings.timeoutMs });
  const result = await (ctx.tracer ? traceWebhookAttempt(ctx.tracer, endpoint.url, delivery, send) : send());
  recordAttemptMetrics(ctx, delivery, result);
  return result;
}

function recordAttemptMetrics({ metrics }: WebhooksContext, delivery: ClaimedDelivery, result: AttemptResult): void {
  if (!metrics.enabled) return;
  metrics.recordWebhookAttempt(result.outcome, result.durationMs / 1000);
  if (delivery.firstAttemptOfEventSince !== undefined) {
    metrics.recordWebhookFirstAttemptLatency((result.startedAt.getTime() + result.durationMs - delivery.firstAttemptOfEventSince) / 1000);
  }
}

export interface AnsweredDelivery {
  delivery: ClaimedDelivery;
  result: AttemptResult;
}

/**
 * Records attempts' outcomes, all in one transaction (on PostgreSQL one statement): each delivered, failed (with one warning
 * line), or due again the spec's pause after its attempt ended. An outcome is refused
 * (recorded: false) if a later claim has taken its delivery over. If the transaction fails,
 * none is written: their leases expire and the deliveries are claimed again.
 */
export async function recordAttemptOutcomes(ctx: WebhooksContext, answered: readonly AnsweredDelivery[], dispatcherId: string): Promise<AttemptReport[]> {
  // Once per batch, not per outcome: the profile counts this function's own time first among the dispatcher's.
  const batch: OutcomeBatch = { now: ctx.clock.now().toISOString(), dispatcherId, guarded: ctx.guardAddresses ? 1 : 0 };
  const steps: NextStep[] = [];
  const retries: Array<Date | undefined> = [];
  const rows: FencedOutcomeRow[] = [];
  for (const { delivery, result } of answered) {
    const step = nextStepAfter(delivery.attempt, result.outcome);
    const retryAt = step.kind === 'retry' ? new Date(result.startedAt.getTime() + result.durationMs + step.delayMs) : undefined;
    steps.push(step);
    retries.push(retryAt);
    rows.push(outcomeRow(delivery, result, step, retryAt, batch));
  }
  const written = await ctx.store.recordAttemptsIfFenced(ctx.db, rows);
  return answered.map(({ delivery, result }, i) => {
    const step = steps[i]!;
    const recorded = written.has(fencedKey(delivery.deliveryId, delivery.fencingToken));
    if (recorded && step.kind === 'failed') {
      ctx.logger.warn(
        { eventId: delivery.eventId, partnerId: delivery.partnerId, deliveryId: delivery.deliveryId, attempts: delivery.attempt, outcome: result.outcome, statusCode: result.statusCode },
        'webhook delivery failed',
      );
    }
    if (recorded && step.kind !== 'retry') ctx.metrics.recordWebhookDeliveryEnded(step.kind);
    return { delivery, outcome: result.outcome, statusCode: result.statusCode, step, recorded, retryAt: retries[i] };
  });
}

export async function recordAttemptOutcome(ctx: WebhooksContext, delivery: ClaimedDelivery, result: AttemptResult, dispatcherId: string): Promise<AttemptReport> {
  const [report] = await recordAttemptOutcomes(ctx, [{ delivery, result }], dispatcherId);
  return report!;
}

/** Both steps at once: the attempt, then its outcome recorded. */
export async function attemptClaimedDelivery(
  ctx: WebhooksContext,
  sender: WebhookHttpClient,
  endpoint: DeliveryEndpoint,
  delivery: ClaimedDelivery,
  dispatcherId: string,
): Promise<AttemptReport> {
  return recordAttemptOutcome(ctx, delivery, await sendClaimedAttempt(ctx, sender, endpoint, delivery), dispatcherId);
}

/** What every outcome of one batch shares: when it is written (ISO), by whom, and whether addresses were guarded (1 or 0). */
interface OutcomeBatch {
  now: string;
  dispatcherId: string;
  guarded: number;
}

/** What an attempt's outcome writes: its delivery's new state and the attempt row. */
function outcomeRow(delivery: ClaimedDelivery, result: AttemptResult, step: NextStep, retryAt: Date | undefined, batch: OutcomeBatch): FencedOutcomeRow {
  return {
    id: delivery.deliveryId,
    fencing_token: delivery.fencingToken,
    status: step.kind === 'retry' ? 'pending' : step.kind,
    attempts_made: delivery.attempt,
    next_attempt_at: retryAt ? retryAt.toISOString() : batch.now,
    last_outcome: result.outcome,
    last_status_code: result.statusCode,
    completed_at: step.kind === 'retry' ? null : batch.now,
    attempt_number: delivery.attempt,
    event_id: delivery.eventId,
    started_at: result.startedAt.toISOString(),
    duration_ms: result.durationMs,
    outcome: result.outcome,
    status_code: result.statusCode,
    response_body: result.responseBody,
    detail: result.detail?.trim() || null,
    sent_by: batch.dispatcherId,
    address_guarded: batch.guarded,
  };
}
