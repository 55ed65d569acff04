// `erx webhooks confirm-endpoint` through the real CLI (issue 38 item 5): `show` prints a
// partner's waiting change of URL, confirm lets it take effect at once (the previous URL having
// been told by a signed webhook.endpoint_changed), and a partner with nothing waiting, or
// unknown, is a one-line refusal that changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildFeatures } from '../../src/features.ts';
import type { Deps } from '../../src/deps.ts';
import { assembleDeps, closeDeps } from '../../src/runtime.ts';
import { changePartnerEndpoint } from '../../src/webhooks/webhook-endpoint-change.ts';
import type { WebhooksContext } from '../../src/webhooks/index.ts';
import { createCliEnvironment, expectOneLineRefusal, runErx, runErxJson, type CliEnvironment } from '../cli/cli-helpers.ts';
import { startReceiver, type Receiver } from './webhook-receivers.ts';

let cli: CliEnvironment;
let receiver: Receiver;
let deps: Deps;
let webhooks: WebhooksContext;
const NEW_URL = 'http://127.0.0.1:9/moved';

beforeAll(async () => {
  cli = createCliEnvironment({ ERX_ENDPOINT_CHANGE_DELAY_MINUTES: '60' });
  receiver = await startReceiver();
  await runErxJson(cli.env, ['partner', 'create', 'acme-pms', '--webhook-url', receiver.url]);
  await runErxJson(cli.env, ['partner', 'create', 'calm-pms', '--webhook-url', receiver.url]);
  deps = await assembleDeps(loadConfig(cli.env));
  webhooks = buildFeatures(deps).webhooks;
}, 60_000);
afterAll(async () => {
  if (deps) await closeDeps(deps);
  await receiver?.close();
  await cli?.cleanup();
});

describe('erx webhooks confirm-endpoint', () => {
  it("shows a partner's waiting change and lets it take effect now; nothing waiting or an unknown partner is refused", async () => {
    const asked = await changePartnerEndpoint(webhooks, 'acme-pms', NEW_URL);
    expect(asked.previous_url_notified).toBe(true);
    expect(receiver.requests.some((r) => r.body.includes('"webhook.endpoint_changed"'))).toBe(true);

    const shown = await runErx(cli.env, ['webhooks', 'show', 'acme-pms']);
    expect(shown.stdout).toContain(`webhook_url:       ${receiver.url}`);
    expect(shown.stdout).toContain(`changing to:       ${NEW_URL} at ${asked.takes_effect_at}`);

    const confirmed = await runErxJson(cli.env, ['webhooks', 'confirm-endpoint', 'acme-pms', '--json']);
    expect(confirmed).toMatchObject({ partner_id: 'acme-pms', webhook_url: NEW_URL, previous_url: receiver.url, was_due_at: asked.takes_effect_at });
    expect(await runErxJson(cli.env, ['webhooks', 'show', 'acme-pms', '--json'])).toMatchObject({ webhook_url: NEW_URL, pending_change: null });

    expectOneLineRefusal(await runErx(cli.env, ['webhooks', 'confirm-endpoint', 'acme-pms']), /partner acme-pms has no change of webhook URL waiting/);
    // Another partner's endpoint is untouched by acme's change and has nothing to confirm.
    expectOneLineRefusal(await runErx(cli.env, ['webhooks', 'confirm-endpoint', 'calm-pms']), /partner calm-pms has no change of webhook URL waiting/);
    expect(await runErxJson(cli.env, ['webhooks', 'show', 'calm-pms', '--json'])).toMatchObject({ webhook_url: receiver.url });
    expectOneLineRefusal(await runErx(cli.env, ['webhooks', 'confirm-endpoint', 'nobody']), /partner nobody not found/);
  });
});
