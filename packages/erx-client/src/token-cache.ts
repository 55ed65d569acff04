// The access token of one user: fetched from POST /v1/token on first need, kept, and fetched
// again shortly before it expires (by the client's clock, from the expiresIn erx answers) or
// after erx refused it. Concurrent calls share one token request.

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
}

export interface TokenCache {
  /** A token valid now, fetched when none is. */
  current(): Promise<string>;
  /** Forgets `accessToken` (if still the kept one), so the next call fetches another. */
  drop(accessToken: string | undefined): void;
}

/** Renew this long before expiry, at most (and at most half the token's lifetime). */
const RENEW_BEFORE_MS = 60_000;

export function createTokenCache(fetchToken: () => Promise<IssuedToken>, now: () => number): TokenCache {
  let kept: { value: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchNew = async () => {
    const issuedAt = now();
    const token = await fetchToken();
    const lifetimeMs = token.expiresIn * 1000;
    kept = { value: token.accessToken, renewAt: issuedAt + lifetimeMs - Math.min(RENEW_BEFORE_MS, lifetimeMs / 2) };
    return token.accessToken;
  };
  return {
    current() {
      if (kept && now() < kept.renewAt) return Promise.resolve(kept.value);
      pending ??= fetchNew().finally(() => (pending = undefined));
      return pending;
    },
    drop(accessToken) {
      if (kept && (accessToken === undefined || accessToken === `Bearer ${kept.value}` || accessToken === kept.value)) kept = undefined;
    },
  };
}
