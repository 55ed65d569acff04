// The flood (issue 38 item 3): anyone without credentials used to grow the 7-year audit chain by
// an entry per refused login (20 a second per instance, each with 100-character claimed ids).
// 100,000 refused logins from 20 addresses over five minutes, called in-process through the
// auth service as the routes call it (screen, then check), with the real in-memory rate
// limiter so lockouts happen too: the chain gains at most a few hundred entries (none), the
// security alerts hold every refusal counted in at most a row per address, reason and minute.
import { describe, expect, it } from 'vitest';
import { runInAuditScope } from '../../src/audit/index.ts';
import { checkCredentialAttempt, screenCredentialAttempt, type AuthContext } from '../../src/auth/index.ts';
import { createMemoryRateLimiter } from '../../src/platform/http/rate-limiter.ts';
import { tokenHeaders, useTestApp } from '../given.ts';
import { lastAuditSeq } from './audit-helpers.ts';

const REFUSALS = 100_000;
const ADDRESSES = 20;
/** Simulated time per attempt: 100,000 of them span five minutes. */
const MS_PER_ATTEMPT = 3;

describe('a flood of refused logins', () => {
  const { t, c } = useTestApp({});

  it('adds at most a few hundred entries to the 7-year chain and counts every refusal apart', { timeout: 120_000 }, async () => {
    const auth: AuthContext = { ...t.features.auth, rateLimiter: createMemoryRateLimiter({ max: 1_000_000, windowSeconds: 60 }, t.clock) };
    const before = await lastAuditSeq(t);
    const started = t.clock.now().toISOString();
    type Headers = Parameters<typeof screenCredentialAttempt>[1]['headers'];
    const wrongSecret = { ...tokenHeaders(c.g), 'x-partner-secret': 'wrong-partner-secret-value' } as Headers;
    const junk = { ...tokenHeaders(c.g), 'x-partner-id': 'x'.repeat(100), 'x-organization-id': 'y'.repeat(100) } as Headers;
    let refused = 0;
    for (let n = 0; n < REFUSALS; n += 1) {
      const address = `198.51.100.${n % ADDRESSES}`;
      const attempt = { headers: n % 10 === 0 ? wrongSecret : junk, address, endpoint: '/v1/token' as const };
      const scope = { actor: { kind: 'anonymous' as const }, hpio: null, requestId: `req_${n}`, clientAddress: address };
      const checked = await runInAuditScope(scope, async () => {
        await screenCredentialAttempt(auth, attempt);
        return checkCredentialAttempt(auth, attempt);
      }).catch((error: { status?: number }) => {
        if (error.status !== 401 && error.status !== 429) throw error;
        return undefined;
      });
      if (checked === undefined) refused += 1;
      t.clock.advanceSeconds(MS_PER_ATTEMPT / 1000);
    }
    expect(refused).toBe(REFUSALS);
    await t.features.securityAlerts.flush();

    const chainGrowth = (await lastAuditSeq(t)) - before;
    expect(chainGrowth).toBeLessThanOrEqual(300);

    const alerts = await t.deps.database.selectFrom('security_alerts').selectAll().where('first_at', '>=', started).execute();
    const reasons = new Set(alerts.map((alert) => alert.reason));
    expect(reasons).toEqual(new Set(['ids_malformed', 'credentials_invalid', 'locked_out']));
    expect(alerts.reduce((sum, alert) => sum + Number(alert.count), 0)).toBe(REFUSALS);
    // Five minutes of simulated time touch at most six minutes; three reasons; twenty addresses.
    expect(alerts.length).toBeLessThanOrEqual(ADDRESSES * 6 * 3);
    // The junk ids are kept only as short hashes.
    const stored = JSON.stringify(alerts);
    expect(stored).not.toContain('x'.repeat(20));
    expect(stored).not.toContain('y'.repeat(20));
  });
});
