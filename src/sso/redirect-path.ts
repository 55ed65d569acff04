// The redirect_path of POST /v1/sso: where on the portal the signed-in prescriber lands. It
// must stay on the portal, so anything a browser could read as another site is refused: a
// scheme, a host, `//` (a protocol-relative address) or a backslash in the path (which
// browsers read as `/`), and control characters or spaces anywhere (they would end up in a
// Location header). The reserved_1..3 a partner wants echoed in webhooks ride in its query.
import type { ValidationIssue } from '../platform/http/api-error.ts';
import { eventMetadata, type EventMetadata } from '../webhooks/index.ts';

/** Where a third-party client lands when it names no path (the vendor's default). */
export const DEFAULT_REDIRECT_PATH = '/dashboard';

/** Longest redirect_path accepted, in characters; prefill text rides in it, URL-encoded. */
export const REDIRECT_PATH_MAX_LENGTH = 2048;

export interface PortalRedirect {
  /** The path as the browser will be sent to it (normalised by the URL parser, non-ASCII percent-encoded). */
  path: string;
  reserved: EventMetadata;
}

const FIELD = 'redirect_path';
const issue = (message: string): ValidationIssue => ({ field: FIELD, message, code: 'VALIDATION_ERROR' });

/** Why `text` is not a path on the portal, or undefined when it is one. */
function refusalOf(text: string): string | undefined {
  const pathPart = text.split(/[?#]/, 1)[0]!;
  if (!text.startsWith('/')) return 'must be a path on the portal starting with / (no scheme or host), e.g. /dashboard';
  if (pathPart.includes('//')) return 'must not contain // (it would name another host)';
  if (pathPart.includes('\\')) return 'must not contain a backslash';
  if (/[\u0000-\u0020\u007f]/.test(text)) return 'must not contain spaces or control characters (URL-encode them)';
  return undefined;
}

/** The redirect and its reserved values, or the issue that refuses it. `portalUrl` is the portal's origin. */
export function readRedirectPath(sent: string | undefined, portalUrl: string): { redirect?: PortalRedirect; issues: ValidationIssue[] } {
  const text = sent ?? DEFAULT_REDIRECT_PATH;
  const refusal = refusalOf(text);
  if (refusal) return { issues: [issue(refusal)] };
  const url = new URL(text, portalUrl);
  if (url.origin !== new URL(portalUrl).origin) return { issues: [issue('must be a path on the portal')] };
  const query = url.searchParams;
  const reserved = eventMetadata({ reserved_1: query.get('reserved_1'), reserved_2: query.get('reserved_2'), reserved_3: query.get('reserved_3') });
  return { redirect: { path: `${url.pathname}${url.search}${url.hash}`, reserved }, issues: [] };
}
