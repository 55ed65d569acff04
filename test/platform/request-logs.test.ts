import { describe, expect, it } from 'vitest';
import { bearer, requestToken, tokenHeaders, useTestApp } from '../given.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { Writable } from 'node:stream';

let token: string;

const { t, g } = useTestApp({}, async (t, { g }) => {
  t.logs.length = 0; // only the four requests below
  token = await requestToken(t, g, ['create:patient']);
  const headers = bearer(token, g);
  await t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers });
  await t.app.inject({ method: 'GET', url: `/v1/organizations/${g.organizationId}/validate`, headers: { ...headers, 'x-organization-secret': 'wrong-secret-value' } });
  await t.app.inject({ method: 'POST', url: '/v1/token', headers: tokenHeaders(g), payload: '{"broken json' });
  return { g };
});

const entries = () => t.logs.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('request logs', () => {
  it('writes one line per request with id, method, route, status, duration and the caller ids', () => {
    const lines = entries().filter((e) => e.msg === 'request completed');
    expect(lines).toHaveLength(4);
    const validate = lines.find((e) => e.status === 200 && e.method === 'GET')!;
    expect(validate).toMatchObject({
      requestId: expect.stringMatching(/^req_/),
      route: '/v1/organizations/:organization_id/validate',
      partnerId: g.partnerId,
      organizationId: g.organizationId,
      durationMs: expect.any(Number),
    });
    const tokenLine = lines.find((e) => e.route === '/v1/token' && e.status === 200)!;
    expect(tokenLine).toMatchObject({ partnerId: g.partnerId, organizationId: g.organizationId });
  });

  it('logs the ids a public route was sent as claimed, and only authenticated ids as partnerId and organizationId', async () => {
    const lineOf = (requestId: string) => entries().find((e) => e.msg === 'request completed' && e.requestId === requestId)!;
    const refused = await t.app.inject({ method: 'POST', url: '/v1/token', headers: { ...tokenHeaders(g), 'x-partner-secret': 'wrong' }, payload: { grantType: 'client_credentials', scope: ['create:patient'] } });
    expect(refused.statusCode).toBe(401);
    const refusedLine = lineOf(refused.headers['x-request-id'] as string);
    expect(refusedLine).toMatchObject({ claimedPartnerId: g.partnerId, claimedOrganizationId: g.organizationId });
    expect(refusedLine).not.toHaveProperty('partnerId');
    expect(refusedLine).not.toHaveProperty('organizationId');
    const sso = await t.app.inject({ method: 'POST', url: '/v1/sso', headers: { ...tokenHeaders(g), 'content-type': 'application/json' }, payload: '{}' });
    expect(sso.statusCode).toBe(200);
    expect(lineOf(sso.headers['x-request-id'] as string)).toMatchObject({ partnerId: g.partnerId, organizationId: g.organizationId });
    // A bearer request is its token's principal, whatever id headers it also sends.
    const spoofed = await t.app.inject({
      method: 'GET',
      url: `/v1/organizations/${g.organizationId}/validate`,
      headers: { ...bearer(token, g), 'x-partner-id': 'someone-else', 'x-organization-id': '00000000-0000-4000-8000-000000000000' },
    });
    expect(spoofed.statusCode).toBe(200);
    const spoofedLine = lineOf(spoofed.headers['x-request-id'] as string);
    expect(spoofedLine).toMatchObject({ partnerId: g.partnerId, organizationId: g.organizationId });
    expect(spoofedLine).not.toHaveProperty('claimedPartnerId');
  });

  it('never contains a secret or a token the requests carried', () => {
    const text = t.logs.join('\n');
    for (const secret of [g.partnerSecret, g.organizationSecret, token, token.split('.')[2]!, 'wrong-secret-value']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('logger redaction', () => {
  it('censors credentials and patient identifiers wherever a log call includes them', () => {
    const lines: string[] = [];
    const logger = createLogger('info', new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }));
    logger.info({ headers: { authorization: 'Bearer abc.def.ghi', 'x-organization-secret': 'org-secret-1' }, patient: { ihi_number: '8003601240022579', medicare_card_number: '2950141861' } }, 'x');
    logger.info({ secret: 'top-level-secret' }, 'y');
    const text = lines.join('');
    for (const value of ['abc.def.ghi', 'org-secret-1', '8003601240022579', '2950141861', 'top-level-secret']) expect(text).not.toContain(value);
    expect(text).toContain('[redacted]');
  });
});
