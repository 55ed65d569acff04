// The state rules table and its judge, as tables of cases: every row names its source and date,
// and each requirement refuses beside its field in its state only.
import { describe, expect, it } from 'vitest';
import { judgeControlledMedicine, RTPM_PROGRAMS, RULES_READ, STATE_RULES, type ControlledFacts } from './index.ts';

const facts = (overrides: Partial<ControlledFacts> = {}): ControlledFacts => ({
  state: 'VIC', schedule: null, medicineName: 'Amoxicillin', repeats: 0, repeatIntervalDays: null, controlledSubstanceReference: null,
  dateOfBirthVerified: true, medicineField: 'item_name', ...overrides,
});
const ruleIds = (f: ControlledFacts) => judgeControlledMedicine(f).refusals.map((r) => `${r.rule}@${r.field}`);

describe('the state rules table', () => {
  it('gives every row a unique id, a covered medicine, a message and a source read on the date', () => {
    expect(new Set(STATE_RULES.map((rule) => rule.id)).size).toBe(STATE_RULES.length);
    for (const rule of STATE_RULES) {
      expect((rule.covers.schedules?.length ?? 0) + (rule.covers.ingredients?.length ?? 0), rule.id).toBeGreaterThan(0);
      expect(rule.message.length, rule.id).toBeGreaterThan(20);
      expect(rule.source.title.length, rule.id).toBeGreaterThan(10);
      expect(rule.read, rule.id).toBe(RULES_READ);
      if (rule.state !== 'ALL') expect(rule.source.url, rule.id).toMatch(/^https?:\/\/[a-z0-9.]+\.gov\.au\//);
    }
  });

  it('has an RTPM system for every state with a monitored list, and a list for every RTPM system', () => {
    const monitoredStates = new Set(STATE_RULES.filter((rule) => rule.requires === 'rtpm_check').map((rule) => rule.state));
    expect([...monitoredStates].sort()).toEqual(Object.keys(RTPM_PROGRAMS).sort());
  });
});

describe('judging a prescription by the practice state', () => {
  it.each([
    ['WA S8 without an interval', facts({ state: 'WA', schedule: 'S8', medicineName: 'Morphine' }), ['wa-s8-repeat-interval@repeat_interval_days']],
    ['WA S8 with an interval', facts({ state: 'WA', schedule: 'S8', medicineName: 'Morphine', repeatIntervalDays: 14, repeats: 2 }), []],
    ['WA S8, date of birth not verified', facts({ state: 'WA', schedule: 'S8', repeatIntervalDays: 14, dateOfBirthVerified: false, medicineField: 'custom_drug_id' }), ['wa-s8-verified-date-of-birth@custom_drug_id']],
    ['VIC S8 without an interval (no Victorian row found)', facts({ state: 'VIC', schedule: 'S8', repeats: 2 }), []],
    ['NSW S8 with repeats and no interval', facts({ state: 'NSW', schedule: 'S8', repeats: 2 }), ['nsw-s8-repeat-interval@repeat_interval_days']],
    ['NSW S8 without repeats', facts({ state: 'NSW', schedule: 'S8', repeats: 0 }), []],
    ['TAS S8 with repeats', facts({ state: 'TAS', schedule: 'S8', repeats: 1 }), ['tas-s8-repeat-interval@repeat_interval_days']],
    ['TAS S4D diazepam with repeats', facts({ state: 'TAS', schedule: 'S4', medicineName: 'Diazepam 5 mg tablet', repeats: 1 }), ['tas-s4d-repeat-interval@repeat_interval_days']],
    ['TAS clonazepam (excepted from S4D)', facts({ state: 'TAS', schedule: 'S4', medicineName: 'Clonazepam', repeats: 1 }), []],
    ['NSW methylphenidate without the approval number', facts({ state: 'NSW', schedule: 'S8', medicineName: 'Methylphenidate hydrochloride', repeatIntervalDays: 28 }), ['nsw-psychostimulant-approval@controlled_substance_reference']],
    ['NSW methylphenidate with it', facts({ state: 'NSW', schedule: 'S8', medicineName: 'Methylphenidate', controlledSubstanceReference: 'CNS12345' }), []],
    ['WA methylphenidate: no permit row for WA', facts({ state: 'WA', schedule: 'S8', medicineName: 'Methylphenidate', repeatIntervalDays: 28 }), []],
    ['no practice state', facts({ state: null, schedule: 'S8', repeats: 3 }), []],
  ])('%s', (_name, given, expected) => {
    expect(ruleIds(given)).toEqual(expected);
  });

  it.each([
    ['VIC quetiapine', facts({ state: 'VIC', medicineName: 'Quetiapine 25 mg' }), 'vic-safescript-monitored', false],
    ['VIC paracetamol with codeine', facts({ state: 'VIC', medicineName: 'Paracetamol + codeine' }), 'vic-safescript-monitored', false],
    ['VIC oxycodone S8', facts({ state: 'VIC', schedule: 'S8', medicineName: 'Oxycodone' }), 'vic-safescript-monitored', true],
    ['NSW any S8', facts({ state: 'NSW', schedule: 'S8', medicineName: 'Nabiximols' }), 'nsw-safescript-monitored', true],
    ['QLD gabapentin', facts({ state: 'QLD', medicineName: 'Gabapentin' }), 'qld-qscript-monitored', false],
    ['VIC amoxicillin', facts({ state: 'VIC' }), undefined, false],
    ['WA S8 (no monitored list found)', facts({ state: 'WA', schedule: 'S8', repeatIntervalDays: 7 }), undefined, true],
    ['codeine is not matched inside another word', facts({ state: 'VIC', medicineName: 'Dihydrocodeine' }), undefined, false],
  ])('%s: monitored by %s, step-up %s', (_name, given, monitoredBy, stepUp) => {
    const judgement = judgeControlledMedicine(given);
    expect(judgement.monitoredBy?.id).toBe(monitoredBy);
    expect(judgement.needsStepUp).toBe(stepUp);
  });
});

describe("the operators' page of the rules", () => {
  it('lists every rule of the table by its id, with its source', async () => {
    const { readFileSync } = await import('node:fs');
    const page = readFileSync(new URL('../../docs/operators/state-rules-and-rtpm.md', import.meta.url), 'utf8');
    for (const rule of STATE_RULES) {
      const row = page.split('\n').find((line) => line.startsWith(`| \`${rule.id}\` |`));
      expect(row, rule.id).toBeDefined();
      if (rule.source.url) expect(row, rule.id).toContain(rule.source.url);
    }
  });
});
