// Walking a patient's prescriptions with limit and lastKey: every prescription exactly once,
// newest first, also while new ones are created between the pages.
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPatient, givenPrescription, prescriptionsClient } from './prescriptions-given.ts';

const { t, c } = useTestApp({}, async (t) => ({ c: await givenClinic(t) }));

/** `count` prescriptions for the patient, the clock moving on a second after every 7 (so some share a created_date). */
async function givenPrescriptions(patientId: string, count: number): Promise<string[]> {
  const scids: string[] = [];
  for (let n = 0; n < count; n++) {
    if (n % 7 === 0) t.clock.advanceSeconds(1);
    scids.push((await givenPrescription(t, c, {}, { patientId })).scid);
  }
  return scids;
}

interface Page {
  scids: string[];
  dates: string[];
  pagination: { count: number; hasNext: boolean; limit: number; offset: number; lastKey: string | null };
}

async function readPage(patientId: string, limit: number | undefined, lastKey: string | null): Promise<Page> {
  const query = new URLSearchParams();
  if (limit !== undefined) query.set('limit', String(limit));
  if (lastKey !== null) query.set('lastKey', lastKey);
  const response = await prescriptionsClient(t, c).list(`?${query}`, { patientId });
  expect(response.statusCode, response.body).toBe(200);
  const { data, pagination } = response.json();
  const prescriptions = data.prescriptions as Array<{ scid: string; created_date: string }>;
  return { scids: prescriptions.map((p) => p.scid), dates: prescriptions.map((p) => p.created_date), pagination };
}

/** Reads every page; `between` runs after each page but the last. */
async function walk(patientId: string, limit: number | undefined, between: () => Promise<void> = async () => {}): Promise<Page[]> {
  const pages: Page[] = [];
  let lastKey: string | null = null;
  do {
    const page = await readPage(patientId, limit, lastKey);
    pages.push(page);
    lastKey = page.pagination.lastKey;
    if (lastKey !== null) await between();
  } while (lastKey !== null);
  return pages;
}

const isNewestFirst = (dates: string[]) => dates.every((date, index) => index === 0 || dates[index - 1]! >= date);

describe('paging through 120 prescriptions', () => {
  it('in pages of 50 returns each exactly once, newest first, and says when there is no next page', async () => {
    const { patientId } = await givenPatient(t, c);
    const created = await givenPrescriptions(patientId, 120);
    const pages = await walk(patientId, 50);
    expect(pages.map((page) => page.pagination.count)).toEqual([50, 50, 20]);
    expect(pages.map((page) => page.pagination.hasNext)).toEqual([true, true, false]);
    expect(pages.map((page) => page.pagination.limit)).toEqual([50, 50, 50]);
    expect(pages.map((page) => page.pagination.offset)).toEqual([0, 50, 100]);
    expect(pages.at(-1)!.pagination.lastKey).toBeNull();
    const seen = pages.flatMap((page) => page.scids);
    expect(seen).toHaveLength(120);
    expect(new Set(seen)).toEqual(new Set(created));
    expect(isNewestFirst(pages.flatMap((page) => page.dates))).toBe(true);
    expect(seen[0]).toBe(created.at(-1)); // the newest is alone at its second, so it comes first
  }, 60_000); // 120 prescriptions through the API: 20 s was not enough on PostgreSQL on a loaded 2-core machine

  it('returns each of the 120 exactly once while new ones are created between the pages', async () => {
    const { patientId } = await givenPatient(t, c);
    const created = await givenPrescriptions(patientId, 120);
    const added: string[] = [];
    const pages = await walk(patientId, 50, async () => {
      added.push(...(await givenPrescriptions(patientId, 5)));
    });
    const seen = pages.flatMap((page) => page.scids);
    expect(new Set(seen).size).toBe(seen.length); // none twice
    expect(seen.filter((scid) => created.includes(scid)).sort()).toEqual([...created].sort()); // none of the 120 missed
    expect(seen.filter((scid) => added.includes(scid))).toEqual([]); // the new ones sort before the walk's position
    expect(added).toHaveLength(10);
    expect((await walk(patientId, 50)).flatMap((page) => page.scids)).toHaveLength(130);
  }, 60_000);

  it('uses pages of 20 by default and takes pages of one', async () => {
    const { patientId } = await givenPatient(t, c);
    const created = await givenPrescriptions(patientId, 21);
    const byDefault = await walk(patientId, undefined);
    expect(byDefault.map((page) => page.pagination.count)).toEqual([20, 1]);
    const single = await walk(patientId, 1);
    expect(single).toHaveLength(21);
    expect(single.map((page) => page.pagination.offset)).toEqual([...Array(21).keys()]);
    expect(single.flatMap((page) => page.scids).sort()).toEqual([...created].sort());
  });

  it('continues a walk from a lastKey written before pages carried an offset, counting the offset', async () => {
    const { patientId } = await givenPatient(t, c);
    const created = await givenPrescriptions(patientId, 25);
    const first = await readPage(patientId, 10, null);
    const { o, ...withoutOffset } = JSON.parse(Buffer.from(first.pagination.lastKey!, 'base64url').toString('utf8'));
    expect(o).toBe(10);
    const second = await readPage(patientId, 10, Buffer.from(JSON.stringify(withoutOffset)).toString('base64url'));
    expect(second.pagination).toMatchObject({ count: 10, hasNext: true, offset: 10 });
    const third = await readPage(patientId, 10, second.pagination.lastKey);
    expect(third.pagination).toMatchObject({ count: 5, hasNext: false, offset: 20 });
    expect([...first.scids, ...second.scids, ...third.scids].sort()).toEqual([...created].sort());
  });

  it('ends with lastKey null when the last page is exactly full', async () => {
    const { patientId } = await givenPatient(t, c);
    await givenPrescriptions(patientId, 10);
    const pages = await walk(patientId, 10);
    expect(pages).toHaveLength(1);
    expect(pages[0]!.pagination).toMatchObject({ count: 10, hasNext: false, lastKey: null });
  });
});
