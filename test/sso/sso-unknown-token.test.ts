// Opening a sign-in link that cannot be spent (unknown, expired) is answered from a read: no
// transaction is opened and nothing is written, so guessing links costs the database no writes.
// A used link brought again is recorded (issue 38 item 4): its first replay writes its audit entry
// and a security alert; replaying it again costs no further write of the chain.
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../given.ts';
import { mintSsoUrl, pathOf } from '../portal/portal-given.ts';

const { t, c } = useTestApp({ each: true });

const open = (path: string) => t.app.inject({ method: 'GET', url: path });
const rowCounts = async () => ({
  tokens: (await t.deps.database.selectFrom('sso_tokens').select('token_hash').execute()).length,
  sessions: (await t.deps.database.selectFrom('portal_sessions').select('session_hash').execute()).length,
});

describe('GET /auth/sso with a token that cannot be spent', () => {
  it('opens no transaction and writes nothing for an unknown or an expired token; a used one writes once; a live one opens one', async () => {
    const used = pathOf(await mintSsoUrl(t, c.g, '/dashboard'));
    expect((await open(used)).statusCode).toBe(303);
    const expired = pathOf(await mintSsoUrl(t, c.g, '/dashboard'));
    t.clock.advanceSeconds(301);
    const live = pathOf(await mintSsoUrl(t, c.g, '/dashboard'));
    const transactions = vi.spyOn(t.features.sso.db, 'transaction');
    const before = await rowCounts();
    for (const path of [`/auth/sso?token=${randomBytes(32).toString('base64url')}`, expired]) {
      const refused = await open(path);
      expect(refused.statusCode).toBe(401);
      expect(refused.body).toContain('<h1>Sign-in link refused</h1>');
    }
    expect(transactions).not.toHaveBeenCalled();
    // The used link: its first replay is written (the security alert's bucket, then the chain's entry); the next writes nothing.
    expect((await open(used)).statusCode).toBe(401);
    expect(transactions).toHaveBeenCalledTimes(2);
    expect((await open(used)).statusCode).toBe(401);
    expect(transactions).toHaveBeenCalledTimes(2);
    expect(await rowCounts()).toEqual(before);
    expect((await open(live)).statusCode).toBe(303);
    expect(transactions).toHaveBeenCalledTimes(3);
    transactions.mockRestore();
  });
});
