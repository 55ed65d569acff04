// The runner of token messages, one of the background loops of `erx serve` and `erx worker`,
// on the delivery toolkit: it claims due messages under a lease with a fencing token, sends
// each (token-message-senders.ts) with no transaction open, and records the outcome only if its
// claim is still current; the message is composed only now, from the prescriber's name and the
// token page's URL derived from the secret key (the row holds no link); token delivery's retry table (token-message-rules.ts) decides retry,
// backoff and give-up. The toolkit's runner loop wakes it after a commit, for its retries and
// on a poll (other processes' messages, expired leases of a process that died).
import { auditRecords } from '../audit/index.ts';
import { leaseDurationMs, newRunnerId, nextStepOf, startPolledRunner, type RunningLoop } from '../platform/delivery/index.ts';
import { destinationOf, type TokenDeliveryContext } from './token-delivery-service.ts';
import { TOKEN_MESSAGE_RULES } from './token-message-rules.ts';
import { composeTokenMessage } from './token-message-text.ts';
import { openTokenMessageSenders, type TokenMessageSenders } from './token-message-senders.ts';
import { claimDueTokenMessages, recordTokenMessageOutcome, type TokenMessageRow } from './token-messages-store.ts';

const CLAIM_BATCH = 20;

export interface TokenMessageRun {
  sent: number;
  failed: number;
  retrying: number;
  /** When the earliest retry is due, if any. */
  nextRetryAt: Date | undefined;
}

/** Claims what is due now and sends it, until nothing due is left; what one pass of the runner does. */
export async function sendDueTokenMessages(ctx: TokenDeliveryContext, senders: TokenMessageSenders, runnerId: string): Promise<TokenMessageRun> {
  const run: TokenMessageRun = { sent: 0, failed: 0, retrying: 0, nextRetryAt: undefined };
  for (;;) {
    const now = ctx.clock.now();
    const leaseExpiresAt = new Date(now.getTime() + leaseDurationMs(ctx.settings.timeoutMs)).toISOString();
    const claimed = await claimDueTokenMessages(ctx.db, { now: now.toISOString(), limit: CLAIM_BATCH, owner: runnerId, leaseExpiresAt });
    if (claimed.length === 0) return run;
    await Promise.all(claimed.map((row) => sendOne(ctx, senders, row, run)));
  }
}

async function sendOne(ctx: TokenDeliveryContext, senders: TokenMessageSenders, row: TokenMessageRow, run: TokenMessageRun): Promise<void> {
  const attempt = Number(row.attempts_made) + 1;
  const body = composeTokenMessage({ prescriberName: row.prescriber_name, tokenUrl: await ctx.tokenPageUrlOf(row.prescription_id) });
  const result = await senders.send({ channel: row.channel, destination: destinationOf(row, ctx.secretKey), body });
  ctx.metrics.recordTokenMessageSend(row.channel, result.outcome);
  const step = nextStepOf(TOKEN_MESSAGE_RULES, attempt, result.outcome);
  const now = ctx.clock.now();
  const retryAt = step.kind === 'retry' ? new Date(now.getTime() + step.delayMs) : undefined;
  const outcome = {
    status: step.kind === 'retry' ? 'pending' : step.kind === 'delivered' ? 'sent' : 'failed',
    attempts_made: attempt,
    next_attempt_at: (retryAt ?? now).toISOString(),
    last_error: result.error,
    provider_id: result.providerId,
    completed_at: step.kind === 'retry' ? null : now.toISOString(),
  };
  // The outcome and its audit entry (the channel and the outcome class; never the destination) commit together.
  const recorded = await ctx.unitOfWork.run(async (work) => {
    if (!(await recordTokenMessageOutcome(work.trx, row.id, Number(row.fencing_token), outcome))) return false;
    work.record(auditRecords, {
      action: 'prescription.token_send',
      outcome: result.outcome === 'success' ? 'success' : 'error',
      organizationId: row.organization_id,
      detail: { subjectId: row.id, endpoint: row.channel, reason: result.outcome },
    });
    return true;
  });
  if (!recorded) return;
  if (step.kind === 'delivered') run.sent += 1;
  else if (step.kind === 'failed') {
    run.failed += 1;
    ctx.logger.warn({ tokenMessageId: row.id, prescriptionId: row.prescription_id, channel: row.channel, attempts: attempt, error: result.error }, 'token message failed');
  } else {
    run.retrying += 1;
    if (!run.nextRetryAt || retryAt! < run.nextRetryAt) run.nextRetryAt = retryAt;
  }
}

export type RunningTokenRunner = RunningLoop & { readonly id: string };

export function startTokenMessageRunner(ctx: TokenDeliveryContext, options: { id?: string } = {}): RunningTokenRunner {
  const id = options.id ?? newRunnerId();
  const senders = openTokenMessageSenders(ctx.config, ctx.settings.timeoutMs);
  const loop = startPolledRunner({
    name: 'token message runner',
    pass: () => sendDueTokenMessages(ctx, senders, id),
    pollMs: ctx.settings.pollMs,
    clock: ctx.clock,
    logger: ctx.logger,
    wakeups: ctx.outbox.wakeups,
    onStopped: () => senders.close(),
  });
  return { id, stop: () => loop.stop() };
}
