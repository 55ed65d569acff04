import { randomBytes, randomUUID } from 'node:crypto';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function newId(): string {
  return randomUUID();
}

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

// Request ids are made on every request: a random tag per process plus a counter is unique
// across instances without paying for random bytes each time.
const PROCESS_TAG = randomBytes(4).readUInt32BE(0).toString(36).padStart(7, '0').slice(-3);
const COUNTER_SPACE = 36 ** 5;
let requestCounter = randomBytes(4).readUInt32BE(0) % COUNTER_SPACE;

/** `req_<epoch ms>_<8 base36 chars>`: sortable by time, unique enough to trace one request. */
export function newRequestId(): string {
  requestCounter = (requestCounter + 1) % COUNTER_SPACE;
  return `req_${Date.now()}_${PROCESS_TAG}${requestCounter.toString(36).padStart(5, '0')}`;
}

/** A partner id: a lowercase slug of at most 64 characters (`erx partner create` refuses anything else). */
export const PARTNER_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
