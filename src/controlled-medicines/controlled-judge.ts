// The one judge of the state rules (state-rules.ts): given the facts of one prescription (the
// practice's state, the medicine's schedule and name, its repeats and interval, its permit
// reference, whether the patient's date of birth is verified), which rows cover it, which refuse
// it (each beside its field), whether it is a monitored medicine (the RTPM check comes first)
// and whether it needs a step-up to sign. Every entry point asks it through the prescriptions
// service, so the portal, the test helpers and a draft's approval judge alike.
import type { AustralianState } from '../platform/db/stored-values.ts';
import { STATE_RULES, type StateRule } from './state-rules.ts';

export interface ControlledFacts {
  /** The organization's practice state; null: not recorded (no state's rows apply). */
  state: AustralianState | null;
  /** S2..S9 as the prescription (or its custom drug) states it; null when none. */
  schedule: string | null;
  /** The medicine's name (generic name first): its active ingredients are matched in it. */
  medicineName: string;
  repeats: number;
  repeatIntervalDays: number | null;
  controlledSubstanceReference: string | null;
  /** The patient has an IHI whose record status is VERIFIED. */
  dateOfBirthVerified: boolean;
  /** The body field the medicine was named by (custom_drug_id, item_name or pbs_code): the date-of-birth refusal is shown beside it. */
  medicineField: string;
}

export interface ControlledRefusal {
  rule: string;
  field: string;
  message: string;
}

export interface ControlledJudgement {
  /** Every row covering the medicine in the practice's state. */
  rules: StateRule[];
  refusals: ControlledRefusal[];
  /** A monitored medicine: the state's RTPM check comes before writing (its rule). */
  monitoredBy: StateRule | undefined;
  /** A fresh factor is needed before writing or approving (the rule asking it). */
  needsStepUp: boolean;
}

const wordsOf = (text: string) => new Set(text.toLowerCase().split(/[^a-z]+/).filter(Boolean));

/** Whether a row covers this medicine: its schedule is one of the row's, or an ingredient of the row is a word of its name. */
export function ruleCovers(rule: StateRule, facts: Pick<ControlledFacts, 'schedule' | 'medicineName'>): boolean {
  if (facts.schedule !== null && (rule.covers.schedules ?? []).includes(facts.schedule.toUpperCase())) return true;
  const words = wordsOf(facts.medicineName);
  return (rule.covers.ingredients ?? []).some((ingredient) => words.has(ingredient));
}

/** The rows of a state (and of every state) covering a medicine. */
export function rulesCovering(facts: Pick<ControlledFacts, 'state' | 'schedule' | 'medicineName'>): StateRule[] {
  return STATE_RULES.filter((rule) => (rule.state === 'ALL' || rule.state === facts.state) && ruleCovers(rule, facts));
}

/** Why a row refuses these facts, as a refusal beside its field; undefined: the row is met (or asks no field). */
function refusalOf(rule: StateRule, facts: ControlledFacts): ControlledRefusal | undefined {
  switch (rule.requires) {
    case 'repeat_interval':
      if (facts.repeatIntervalDays !== null || (rule.onlyWithRepeats === true && facts.repeats === 0)) return undefined;
      return { rule: rule.id, field: 'repeat_interval_days', message: rule.message };
    case 'verified_date_of_birth':
      return facts.dateOfBirthVerified ? undefined : { rule: rule.id, field: facts.medicineField, message: rule.message };
    case 'permit_reference':
      return facts.controlledSubstanceReference ? undefined : { rule: rule.id, field: 'controlled_substance_reference', message: rule.message };
    case 'rtpm_check':
    case 'step_up':
      return undefined;
  }
}

export function judgeControlledMedicine(facts: ControlledFacts): ControlledJudgement {
  const rules = rulesCovering(facts);
  return {
    rules,
    refusals: rules.flatMap((rule) => refusalOf(rule, facts) ?? []),
    monitoredBy: rules.find((rule) => rule.requires === 'rtpm_check'),
    needsStepUp: rules.some((rule) => rule.requires === 'step_up'),
  };
}
