// The new-prescription form asks the database for the matching medicines only: at most 50
// custom drugs per render (catalog first), a search (the form's Search button, or ?search= on
// its address) finds any other, the chosen one stays listed whatever the search, and a
// search's own % or _ is taken literally. A colleague's own drugs are never found.
import { describe, expect, it } from 'vitest';
import { givenCatalogDrugs, givenUserDrug, validDrug } from '../custom-drugs/custom-drugs-given.ts';
import { givenUser, useTestApp } from '../given.ts';
import { givenClinic, type Clinic } from '../prescriptions/prescriptions-given.ts';
import type { TestApp } from '../test-app.ts';
import { signIn, type PortalClient } from './portal-given.ts';

let catalog: string[];
let colleaguesDrugId: string;

/** More drugs than one render lists: Zetamol 01 .. Zetamol 60. */
const CATALOG_SIZE = 60;

const { t, c, session } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  const names = Array.from({ length: CATALOG_SIZE }, (_, i) => validDrug({ item_generic_name: `Zetamol ${String(i + 1).padStart(2, '0')}` }));
  catalog = await givenCatalogDrugs(t, c, [...names, validDrug({ item_generic_name: 'Odd 100% name_x' })]);
  const colleague = await givenUser(t, c.g.organizationId, ['provider']);
  colleaguesDrugId = await givenUserDrug(t, c, validDrug({ item_generic_name: 'Zetamol colleague' }), colleague.user_id);
  return { c, session: await signIn(t, c.g, '/dashboard') };
});

const form = () => `/dashboard/patients/${c.patientId}/prescriptions`;
const drugOptions = (html: string) => [...html.matchAll(/<option value="drug:([0-9a-f-]+)"/g)].map((m) => m[1]!);
const selectedIn = (html: string) => /<option value="([^"]*)" selected/.exec(/<select id="medicine"[\s\S]*?<\/select>/.exec(html)?.[0] ?? '')?.[1];

describe("the form's medicine list", () => {
  it('lists at most 50 custom drugs of the catalog, and says more match', async () => {
    const page = await session.get(form());
    expect(page.statusCode).toBe(200);
    const listed = drugOptions(page.body);
    expect(new Set(listed).size).toBe(50);
    expect(catalog).toEqual(expect.arrayContaining(listed));
    expect(page.body).toContain('More medicines match than are listed: search by name, strength or form to narrow the list.');
  });

  it('finds a drug past the first 50 by a search, from the Search button or the address', async () => {
    const searched = await session.submit(form(), { search: 'zetamol 57', intent: 'search' });
    expect(searched.statusCode).toBe(200);
    expect(drugOptions(searched.body)).toEqual([catalog[56]]);
    expect(searched.body).not.toContain('More medicines match');
    const addressed = await session.get(`${form()}?search=${encodeURIComponent('Zetamol 4')}`);
    expect(drugOptions(addressed.body).sort()).toEqual(catalog.slice(39, 49).sort());
    expect(addressed.body).toMatch(/id="search"[^>]*value="Zetamol 4"/);
  });

  it('keeps the chosen drug listed and selected when a search does not match it', async () => {
    const response = await session.submit(form(), { medicine: `drug:${catalog[58]}`, search: 'zetamol 03', intent: 'search' });
    expect(drugOptions(response.body)).toEqual([catalog[2], catalog[58]]);
    expect(selectedIn(response.body)).toBe(`drug:${catalog[58]}`);
  });

  it("takes a search's % and _ literally, and never finds a colleague's own drug", async () => {
    expect(drugOptions((await session.get(`${form()}?search=${encodeURIComponent('100%')}`)).body)).toEqual([catalog[CATALOG_SIZE]]);
    expect(drugOptions((await session.get(`${form()}?search=${encodeURIComponent('e_x')}`)).body)).toEqual([catalog[CATALOG_SIZE]]);
    expect(drugOptions((await session.get(`${form()}?search=%25`)).body)).toEqual([catalog[CATALOG_SIZE]]);
    expect(drugOptions((await session.get(`${form()}?search=_`)).body)).toEqual([catalog[CATALOG_SIZE]]);
    const colleague = await session.get(`${form()}?search=colleague`);
    expect(drugOptions(colleague.body)).toEqual([]);
    const chosen = await session.submit(form(), { medicine: `drug:${colleaguesDrugId}`, search: '', intent: 'search' });
    expect(drugOptions(chosen.body)).not.toContain(colleaguesDrugId);
  });
});
