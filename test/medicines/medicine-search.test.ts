// The prescriber's medicine search over the sandbox's PBS extract and the custom drugs: every
// word a prefix of a word (generic or brand name, form, strength, code), any case; the
// organization's catalog and the prescriber's own drugs, never a colleague's own or another
// organization's; each PBS item with its code, benefit type, maximums, restriction and program.
// And the portal's JSON endpoint: a signed-in prescriber only, within their organization.
import { describe, expect, it } from 'vitest';
import { searchMedicines } from '../../src/medicines/index.ts';
import { givenCatalogDrugs, givenUserDrug, validDrug } from '../custom-drugs/custom-drugs-given.ts';
import { givenUser, useTestApp } from '../given.ts';
import { signIn } from '../portal/portal-given.ts';
import { givenClinic } from '../prescriptions/prescriptions-given.ts';

const { t, c, ids, session } = useTestApp({}, async (t) => {
  const c = await givenClinic(t);
  const other = await givenClinic(t);
  const [catalogDrug] = await givenCatalogDrugs(t, c, [validDrug({ item_generic_name: 'Amoxicillin', item_strength: '250mg/5mL', item_form: 'Oral suspension' })]);
  const ownDrug = await givenUserDrug(t, c, validDrug({ item_generic_name: 'Amoxil Forte', item_strength: '1g' }));
  const colleague = await givenUser(t, c.g.organizationId, ['provider']);
  const colleaguesDrug = await givenUserDrug(t, c, validDrug({ item_generic_name: 'Amoxicillin of a colleague' }), colleague.user_id);
  const [otherOrganizationsDrug] = await givenCatalogDrugs(t, other, [validDrug({ item_generic_name: 'Amoxicillin of another clinic' })]);
  return { c, ids: { catalogDrug: catalogDrug!, ownDrug, colleaguesDrug, otherOrganizationsDrug: otherOrganizationsDrug! }, session: await signIn(t, c.g) };
});

const searcher = () => ({ organizationId: c.g.organizationId, userId: c.g.userId });
const search = (text: string, limit = 50) => searchMedicines(t.features.medicines, searcher(), { search: text, limit });
const codesOf = async (text: string) => (await search(text)).pbsItems.map((item) => item.pbs_code);

describe('searching medicines', () => {
  it("finds PBS items and the custom drugs the prescriber may use, never a colleague's own or another organization's", async () => {
    const found = await search('AMOX');
    expect(found.pbsItems.map((item) => item.pbs_code)).toEqual(['2622B', '5009F']);
    expect(found.customDrugs.map((drug) => [drug.custom_drug_id, drug.level])).toEqual([
      [ids.catalogDrug, 'organization'],
      [ids.ownDrug, 'user'],
    ]);
    const everything = await search('');
    const customIds = everything.customDrugs.map((drug) => drug.custom_drug_id);
    expect(customIds).not.toContain(ids.colleaguesDrug);
    expect(customIds).not.toContain(ids.otherOrganizationsDrug);
    expect((await search('another clinic')).customDrugs).toEqual([]);
  });

  it.each([
    ['amox 500 caps', ['2622B']],
    ['amox 500', ['2622B', '5009F']], // 5009F by the start of its code
    ['amoxicillin CAPS', ['2622B']],
    ['oxy modified', ['10754J']],
    ['endone', ['2622K']],
    ['Lyrica 75', ['10431T']],
    ['10754', ['10754J']],
    ['vitamin d3', ['4391T']],
    ['cillin', []],
    ['zzz', []],
  ])('matches every word as the start of a word, in any case: %j', async (text, codes) => {
    expect(await codesOf(text)).toEqual(codes);
  });

  it('finds a custom drug by the start of each word too, and by any part of its text as before', async () => {
    expect((await search('amox susp')).customDrugs.map((drug) => drug.custom_drug_id)).toEqual([ids.catalogDrug]);
    expect((await search('250mg/5')).customDrugs.map((drug) => drug.custom_drug_id)).toEqual([ids.catalogDrug]);
  });

  it('shows each PBS item with its code, benefit type, maximum quantity and repeats, restriction and program', async () => {
    const [oxycodone] = (await search('oxycontin')).pbsItems;
    expect(oxycodone).toMatchObject({ pbs_code: '10754J', benefit_type: 'authority_required', max_quantity: 28, max_repeats: 0, rpbs_only: false, program_code: 'GE' });
    expect(oxycodone!.restriction_text).toContain('Chronic severe disabling pain');
    const [apixaban] = (await search('apixaban')).pbsItems;
    expect(apixaban).toMatchObject({ benefit_type: 'streamlined', streamlined_codes: ['9563', '9564'] });
    expect((await search('sertraline')).pbsItems[0]).toMatchObject({ benefit_type: 'restricted', restriction_text: 'Major depressive disorders' });
    expect((await search('atorvastatin')).pbsItems[0]).toMatchObject({ benefit_type: 'unrestricted', restriction_text: null, max_quantity: 30, max_repeats: 5 });
    expect((await search('panadol osteo')).pbsItems[0]).toMatchObject({ program_code: 'R1', rpbs_only: true });
  });

  it('lists at most the limit of each kind and says more match', async () => {
    const found = await search('tablet', 3);
    expect(found.pbsItems).toHaveLength(3);
    expect(found.more).toBe(true);
    expect((await search('oxycontin', 3)).more).toBe(false);
  });
});

describe('GET /embed/medicines/search', () => {
  it('answers a signed-in prescriber with the PBS items and custom drugs found, labelled as the form lists them', async () => {
    const response = await session.get('/embed/medicines/search?search=amox%20500%20caps');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.pbs_items).toHaveLength(1);
    expect(body.pbs_items[0]).toMatchObject({ pbs_code: '2622B', value: 'pbs:2622B', benefit_type: 'unrestricted', benefit_type_label: 'Unrestricted benefit', max_quantity: 20 });
    expect(body.pbs_items[0].label).toBe('Amoxicillin Capsule 500 mg (as trihydrate) (APO-Amoxicillin, Amoxil, Moxacin): PBS 2622B, Unrestricted benefit, max quantity 20, 1 repeat');
    const drugs = (await session.get('/dashboard/medicines/search?search=amox')).json().custom_drugs.map((drug: { custom_drug_id: string }) => drug.custom_drug_id);
    expect(drugs.sort()).toEqual([ids.catalogDrug, ids.ownDrug].sort());
  });

  it('refuses a visitor without a session, a role that cannot prescribe, and a bad limit', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/embed/medicines/search?search=amox' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.body).not.toContain('2622B');
    const receptionist = await givenUser(t, c.g.organizationId, ['receptionist']);
    const refused = await (await signIn(t, c.g, '/dashboard', receptionist.user_id)).get('/embed/medicines/search?search=amox');
    expect(refused.statusCode).toBe(403);
    expect(refused.body).not.toContain('2622B');
    expect((await session.get('/embed/medicines/search?search=amox&limit=500')).statusCode).toBe(400);
  });
});
