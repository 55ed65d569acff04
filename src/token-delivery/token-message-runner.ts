// The runner of token messages, beside the webhook dispatcher in `erx serve` and `erx worker`.
// It claims due messages under a lease with a fencing token (token-messages-store.ts), sends
// each (token-message-senders.ts) with no transaction open, and records the outcome only if its
// claim is still current; the webhook retry rule (nextStepAfter) decides retry, backoff and
// give-up. It learns of work from the outbox's wake after a commit, a timer for its retries,
// and a poll (other processes' messages, expired leases of a process that died).
import { AsyncResource } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { auditRecords } from '../audit/index.ts';
import { nextStepAfter } from '../webhooks/index.ts';
import type { TokenDeliveryContext } from './token-delivery-service.ts';
import { openTokenMessageSenders, type TokenMessageSenders } from './token-message-senders.ts';
import { claimDueTokenMessages, recordTokenMessageOutcome, type TokenMessageRow } from './token-messages-store.ts';

const CLAIM_BATCH = 20;
const LEASE_MARGIN_MS = 5_000;

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
    const leaseExpiresAt = new Date(now.getTime() + 2 * ctx.settings.timeoutMs + LEASE_MARGIN_MS).toISOString();
    const claimed = await claimDueTokenMessages(ctx.db, { now: now.toISOString(), limit: CLAIM_BATCH, owner: runnerId, leaseExpiresAt });
    if (claimed.length === 0) return run;
    await Promise.all(claimed.map((row) => sendOne(ctx, senders, row, run)));
  }
}

async function sendOne(ctx: TokenDeliveryContext, senders: TokenMessageSenders, row: TokenMessageRow, run: TokenMessageRun): Promise<void> {
  const attempt = Number(row.attempts_made) + 1;
  const result = await senders.send(row);
  ctx.metrics.recordTokenMessageSend(row.channel, result.outcome);
  const step = nextStepAfter(attempt, result.outcome);
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

export interface RunningTokenRunner {
  readonly id: string;
  stop(): Promise<void>;
}

export function startTokenMessageRunner(ctx: TokenDeliveryContext, options: { id?: string } = {}): RunningTokenRunner {
  const id = options.id ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const senders = openTokenMessageSenders(ctx.config, ctx.settings.timeoutMs);
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  const timers = new Set<NodeJS.Timeout>();
  // Bound to the runner's own context: a wake comes from the commit of a request, whose audit scope the runner's entries must not join.
  const pass = AsyncResource.bind((): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = sendDueTokenMessages(ctx, senders, id)
      .then(
        (run) => {
          if (run.nextRetryAt) wakeAt(run.nextRetryAt);
        },
        (error: unknown) => ctx.logger.error({ err: error }, 'token message runner: a pass failed; the poll will try again'),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          pass();
        }
      });
  });
  const wakeAt = (at: Date): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      pass();
    }, Math.max(0, at.getTime() - ctx.clock.now().getTime()) + 2);
    timers.add(timer);
  };
  ctx.outbox.wakeups.on('wake', pass);
  const poll = setInterval(pass, ctx.settings.pollMs);
  pass();
  return {
    id,
    async stop() {
      stopped = true;
      clearInterval(poll);
      for (const timer of timers) clearTimeout(timer);
      ctx.outbox.wakeups.off('wake', pass);
      await running;
      senders.close();
    },
  };
}
