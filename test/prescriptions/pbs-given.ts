// A few PBS Schedule items, one of each kind the prescription rules tell apart, written into the
// catalogue's table as an import would leave them (codes in the real format, facts made up for
// the tests): an unrestricted item, an authority-required one, a streamlined one, an RPBS-only one.
import type { PbsItem } from '../../src/medicines/index.ts';
import type { TestApp } from '../test-app.ts';

const item = (fields: Partial<PbsItem> & Pick<PbsItem, 'pbs_code' | 'drug_name'>): PbsItem => ({
  brand_names: [],
  form: 'tablet',
  strength: '10 mg',
  benefit_type: 'unrestricted',
  program_code: 'GE',
  rpbs_only: false,
  max_quantity: 30,
  max_repeats: 5,
  restriction_text: null,
  streamlined_codes: [],
  schedule_code: '3963',
  ...fields,
});

export const PBS_TEST_ITEMS = {
  unrestricted: item({ pbs_code: '2001K', drug_name: 'Amoxicillin', brand_names: ['Amoxil'], form: 'capsule', strength: '500 mg', max_quantity: 20, max_repeats: 0 }),
  authority: item({
    pbs_code: '2002L',
    // Not a monitored or Schedule 8 medicine, so the state rules and the RTPM gate stay out of
    // the PBS rules' way (test/portal/rtpm-*.test.ts cover those).
    drug_name: 'Adalimumab',
    brand_names: ['Humira'],
    form: 'injection',
    strength: '40 mg',
    benefit_type: 'authority_required',
    max_quantity: 28,
    max_repeats: 0,
    restriction_text: 'Severe active rheumatoid arthritis; authority required',
  }),
  streamlined: item({
    pbs_code: '2003M',
    drug_name: 'Rivaroxaban',
    brand_names: ['Xarelto'],
    strength: '20 mg',
    benefit_type: 'streamlined',
    max_quantity: 28,
    max_repeats: 5,
    restriction_text: 'Prevention of stroke in non-valvular atrial fibrillation',
    streamlined_codes: ['4269', '4381'],
  }),
  rpbs: item({ pbs_code: '2004N', drug_name: 'Glucosamine', form: 'tablet', strength: '1.5 g', program_code: 'R1', rpbs_only: true, max_quantity: 90, max_repeats: 2 }),
} as const;

/** Writes the items into the catalogue (its current schedule), with the words a search matches. */
export async function givenPbsItems(t: TestApp, items: readonly PbsItem[] = Object.values(PBS_TEST_ITEMS)): Promise<void> {
  const db = t.deps.database;
  await db.insertInto('pbs_items').values(items.map((i) => ({
    pbs_code: i.pbs_code,
    drug_name: i.drug_name,
    brand_names: JSON.stringify(i.brand_names),
    form: i.form,
    strength: i.strength ?? null,
    benefit_type: i.benefit_type,
    program_code: i.program_code,
    rpbs_only: i.rpbs_only ? 1 : 0,
    max_quantity: i.max_quantity,
    max_repeats: i.max_repeats,
    restriction_text: i.restriction_text,
    streamlined_codes: JSON.stringify(i.streamlined_codes),
    schedule_code: i.schedule_code,
  }))).execute();
  const words = items.flatMap((i) =>
    [...new Set([i.drug_name, ...i.brand_names, i.form, i.strength ?? ''].join(' ').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean))].map((word) => ({ word, pbs_code: i.pbs_code })),
  );
  await db.insertInto('pbs_item_words').values(words).execute();
}
