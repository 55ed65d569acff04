// Paging of a patient's prescriptions, newest first. A page ends at a position (created_at,
// id) and the next one starts strictly after it, so walking the pages returns every
// prescription exactly once even while new ones are created (they sort before the walk's
// position). The position travels as lastKey: base64url of a small JSON object, opaque to
// partners and checked strictly when it comes back (it names the patient it belongs to).
import { isUuid } from '../platform/ids.ts';

export const PAGE_LIMITS = { default: 20, max: 50 } as const;

export interface PagePosition {
  createdAt: string;
  id: string;
  /**
   * How many prescriptions the walk has passed: the next page's pagination.offset. Absent in a
   * key written before pages carried an offset (a walk that spans an upgrade); the read then
   * counts it.
   */
  offset: number | undefined;
}

/** Far above any offset a walk reaches; a larger one is not a key the service wrote. */
const MAX_OFFSET = 1_000_000_000;

/** An ISO-8601 UTC time as the service writes it (Date.prototype.toISOString). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Far above any cursor the service writes (about 130 characters). */
const MAX_LAST_KEY_LENGTH = 512;

export function encodeLastKey(patientId: string, position: PagePosition & { offset: number }): string {
  return Buffer.from(JSON.stringify({ p: patientId, c: position.createdAt, i: position.id, o: position.offset })).toString('base64url');
}

/** The position a lastKey names, or undefined when it is not one the service wrote for this patient's list. */
export function decodeLastKey(patientId: string, lastKey: string): PagePosition | undefined {
  if (lastKey.length > MAX_LAST_KEY_LENGTH || !BASE64URL.test(lastKey)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(lastKey, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { p, c, i, o } = parsed as Record<string, unknown>;
  if (p !== patientId || typeof c !== 'string' || !ISO_TIME.test(c) || typeof i !== 'string' || !isUuid(i)) return undefined;
  if (o !== undefined && !isOffset(o)) return undefined;
  return { createdAt: c, id: i, offset: o };
}

function isOffset(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_OFFSET;
}

/** The page size `limit` asks for (absent: the default), or undefined when it is not a whole number from 1 to the maximum. */
export function readPageLimit(limit: string | undefined): number | undefined {
  if (limit === undefined) return PAGE_LIMITS.default;
  if (!/^\d{1,3}$/.test(limit)) return undefined;
  const value = Number(limit);
  return value >= 1 && value <= PAGE_LIMITS.max ? value : undefined;
}
