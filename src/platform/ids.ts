import { randomBytes, randomUUID } from 'node:crypto';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function newId(): string {
  return randomUUID();
}

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** `req_<epoch ms>_<8 base36 chars>`: sortable by time, unique enough to trace one request. */
export function newRequestId(): string {
  const suffix = randomBytes(6).readUIntBE(0, 6).toString(36).padStart(8, '0').slice(-8);
  return `req_${Date.now()}_${suffix}`;
}
