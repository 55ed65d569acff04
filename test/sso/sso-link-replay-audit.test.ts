// A used SSO link brought again (issue 38 item 4): someone else may hold it. Before, a replay was
// answered from a read and left nothing. Now its first replay is auth.sso_spent refused, by an
// anonymous bearer, against the link's user and organization; every replay is counted as a
// security alert, so replaying a link in a loop adds one entry to the 7-year chain. An unknown
// link still writes nothing.
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { auditEntriesAfter, lastAuditSeq, securityAlertsNow, theOneAuditEntry } from '../audit/audit-helpers.ts';
import { tokenHeaders, useTestApp } from '../given.ts';

const ADDRESS = '192.0.2.45';
const { t, c } = useTestApp({});

async function send(method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({ method, url, headers, remoteAddress: ADDRESS, ...(payload === undefined ? {} : { payload: payload as object }) });
}

function freshMinute() {
  t.clock.advanceSeconds(60);
}

/** The security alert buckets of the current minute from ADDRESS, with the counts waiting in memory written. */
const alertsNow = () => securityAlertsNow(t, ADDRESS);

describe('a used link brought again (issue 38 item 4)', () => {
  it("its first replay is auth.sso_spent refused against the link's user; every replay is counted as a security alert, the chain gains one entry", async () => {
    const minted = await send('POST', '/v1/sso', { ...tokenHeaders(c.g), 'content-type': 'application/json' }, { redirect_path: '/dashboard' });
    expect(minted.statusCode).toBe(200);
    const url = new URL(minted.json().data.redirect_url);
    const landing = `${url.pathname}${url.search}`;
    expect((await send('GET', landing, {})).statusCode).toBe(303);
    freshMinute();
    const before = await lastAuditSeq(t);
    const first = await send('GET', landing, {});
    expect(first.statusCode).toBe(401);
    expect(first.body).toContain('already been used');
    const entry = await theOneAuditEntry(t, before, 'auth.sso_spent');
    expect(entry).toMatchObject({ outcome: 'refused', actor_kind: 'anonymous', partner_id: c.g.partnerId, organization_id: c.g.organizationId, user_id: null, target_user_id: c.g.userId, client_address: ADDRESS });
    expect(entry.detail).toEqual({ partnerId: c.g.partnerId, reason: 'used' });
    expect(first.body).toContain(entry.request_id!);
    // Replayed in a loop: counted apart, no further entry of the chain.
    for (let i = 0; i < 4; i += 1) expect((await send('GET', landing, {})).statusCode).toBe(401);
    const after = await auditEntriesAfter(t, before);
    expect(after.map((e) => e.action)).toEqual(['auth.sso_spent']);
    // The link itself is in no entry and no alert.
    expect(JSON.stringify([after, await alertsNow()])).not.toContain(minted.json().data.sso_token);
    expect((await alertsNow()).filter((a) => a.endpoint === '/auth/sso')).toMatchObject([
      { reason: 'link_replayed', count: 5, partner_id: c.g.partnerId, organization_id: c.g.organizationId, user_id: c.g.userId },
    ]);
  });

  it('an unknown link still writes nothing, so guessing costs no write', async () => {
    freshMinute();
    const before = await lastAuditSeq(t);
    expect((await send('GET', `/auth/sso?token=${'A'.repeat(43)}`, {})).statusCode).toBe(401);
    expect(await auditEntriesAfter(t, before)).toEqual([]);
    expect((await alertsNow()).filter((a) => a.endpoint === '/auth/sso')).toEqual([]);
  });
});
