import { describe, expect, it } from 'vitest';
import { decodeLastKey, encodeLastKey, readPageLimit } from './prescription-paging.ts';

const PATIENT = '0b7e9c52-3f1d-4a6e-8c2b-5d9f1e3a7c40';
const POSITION = { createdAt: '2026-11-22T00:00:00.000Z', id: '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f', offset: 20 };
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('lastKey', () => {
  it('comes back as the position it was made from', () => {
    const lastKey = encodeLastKey(PATIENT, POSITION);
    expect(lastKey).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeLastKey(PATIENT, lastKey)).toEqual(POSITION);
  });

  it('takes a key written before pages carried an offset, leaving the offset to be counted', () => {
    expect(decodeLastKey(PATIENT, encode({ p: PATIENT, c: POSITION.createdAt, i: POSITION.id }))).toEqual({ ...POSITION, offset: undefined });
  });

  it.each([
    { reason: "another patient's", lastKey: encodeLastKey('1b7e9c52-3f1d-4a6e-8c2b-5d9f1e3a7c40', POSITION) },
    { reason: 'not base64url', lastKey: 'abc+/=' },
    { reason: 'not JSON', lastKey: Buffer.from('{nope').toString('base64url') },
    { reason: 'JSON but not an object', lastKey: encode('x') },
    { reason: 'null', lastKey: encode(null) },
    { reason: 'a time in another form', lastKey: encode({ p: PATIENT, c: '2026-11-22', i: POSITION.id }) },
    { reason: 'an id that is not a UUID', lastKey: encode({ p: PATIENT, c: POSITION.createdAt, i: 'x' }) },
    { reason: 'a missing field', lastKey: encode({ p: PATIENT, c: POSITION.createdAt }) },
    { reason: 'a zero offset', lastKey: encode({ p: PATIENT, c: POSITION.createdAt, i: POSITION.id, o: 0 }) },
    { reason: 'a fractional offset', lastKey: encode({ p: PATIENT, c: POSITION.createdAt, i: POSITION.id, o: 1.5 }) },
    { reason: 'an offset given as text', lastKey: encode({ p: PATIENT, c: POSITION.createdAt, i: POSITION.id, o: '20' }) },
    { reason: 'too long', lastKey: 'A'.repeat(513) },
    { reason: 'empty', lastKey: '' },
  ])('refuses a lastKey that is $reason', ({ lastKey }) => {
    expect(decodeLastKey(PATIENT, lastKey)).toBeUndefined();
  });
});

describe('limit', () => {
  it.each([
    [undefined, 20],
    ['1', 1],
    ['20', 20],
    ['50', 50],
    ['050', 50],
  ])('reads %j as %j', (text, limit) => {
    expect(readPageLimit(text)).toBe(limit);
  });

  it.each(['0', '51', '1000', '-1', '1.5', 'ten', '', ' 5', '1e1'])('refuses %j', (text) => {
    expect(readPageLimit(text)).toBeUndefined();
  });
});
