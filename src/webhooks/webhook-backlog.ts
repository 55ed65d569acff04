// The outbox's backlog as the operator watches it (the metrics scraped from each process): how
// many deliveries wait, and how long the oldest has waited. A growing age means deliveries are
// not going out (receivers down, no dispatcher running, or more events than the dispatchers send).
import type { WebhookBacklog } from '../platform/metrics/metrics.ts';
import { summarizePendingDeliveries } from './webhook-history-store.ts';
import type { WebhooksContext } from './webhooks-service.ts';

export async function describeDeliveryBacklog(ctx: WebhooksContext): Promise<WebhookBacklog> {
  const { pending, oldestCreatedAt } = await summarizePendingDeliveries(ctx.db);
  const ageMs = oldestCreatedAt === null ? 0 : ctx.clock.now().getTime() - Date.parse(oldestCreatedAt);
  return { pending, oldestPendingAgeSeconds: Math.max(0, ageMs / 1000) };
}

/** From now until the returned function is called, every scrape of `ctx.metrics` reads the backlog. */
export function watchDeliveryBacklog(ctx: WebhooksContext): () => void {
  return ctx.metrics.watchWebhookBacklog(() => describeDeliveryBacklog(ctx));
}
