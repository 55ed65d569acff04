// The states' rules for controlled and monitored medicines, as one table (DESIGN.md decision 27):
// each row names its state, the medicines it covers (by Poisons Standard schedule, by active
// ingredient, or by a state list whose members are written out), what it requires, the message
// shown beside the field it is about, and its source with the date it was read. The practice
// state of the organization picks the rows; one judge (controlled-judge.ts) reads them for every
// entry point. Only rules a source was found for are here: docs/operators/state-rules-and-rtpm.md
// lists what was looked for and not found (those states' rows are left out, never guessed).
import type { AustralianState } from '../platform/db/stored-values.ts';

export const RULES_READ = '2026-11-28';

/** What a row asks of a prescription of a medicine it covers. */
export type StateRequirement =
  /** repeat_interval_days must be given (onlyWithRepeats: when the prescription has repeats). */
  | 'repeat_interval'
  /** The patient's date of birth must be verified: erx reads this as an IHI whose record status is VERIFIED. */
  | 'verified_date_of_birth'
  /** controlled_substance_reference (the state's permit, approval or authority number) must be given. */
  | 'permit_reference'
  /** The state's real-time prescription monitoring system must be checked first (a monitored medicine). */
  | 'rtpm_check'
  /** A fresh second factor (step-up) before the prescription is written or approved. */
  | 'step_up';

export interface StateRuleSource {
  title: string;
  /** The page read; absent for erx's own product rules. */
  url?: string;
}

export interface StateRule {
  /** Short stable name, recorded in the audit trail when the rule refuses a prescription. */
  id: string;
  /** The state, or 'ALL' for a rule of every state. */
  state: AustralianState | 'ALL';
  covers: {
    /** Poisons Standard schedules (the prescription's schedule_number, or its custom drug's poison_class). */
    schedules?: readonly string[];
    /** Active ingredients, matched as whole words of the medicine's name, in any case. */
    ingredients?: readonly string[];
    /** The state list the ingredients are written out from, as the source names it. */
    list?: string;
  };
  requires: StateRequirement;
  /** repeat_interval only: asked only when the prescription has repeats (the source says "for a repeat"). */
  onlyWithRepeats?: boolean;
  /** The refusal shown beside the field (or the notice the portal shows), a sentence. */
  message: string;
  source: StateRuleSource;
  read: string;
  /** How erx reads the source, where it had to choose. */
  note?: string;
}

// Sources, as read (stored copies of the pages) on RULES_READ.
const VIC_SAFESCRIPT = { title: 'Department of Health (Vic), "Medicines monitored by SafeScript"', url: 'https://www.health.vic.gov.au/drugs-and-poisons/medicines-monitored-in-safescript' };
const NSW_SAFESCRIPT = { title: 'NSW Health, "SafeScript NSW: monitored medicines" (current as at 30 May 2024; Poisons and Therapeutic Goods Regulation 2008, Appendix E)', url: 'https://www.health.nsw.gov.au/pharmaceutical/safescript/Pages/monitored-medicines.aspx' };
const NSW_S4B = { title: 'NSW Health, "Schedule 4 Appendix B drugs - Special restricted substances" (a prescription with repeats must have an interval, as for Schedule 8)', url: 'https://www.health.nsw.gov.au/pharmaceutical/Pages/sch4b.aspx' };
const NSW_PSYCHOSTIMULANTS = { title: 'NSW Health, "Dispensing psychostimulants" (Poisons and Therapeutic Goods Regulation 2008, cl 90: the approval reference number on the prescription)', url: 'https://www.health.nsw.gov.au/pharmaceutical/pharmacists/Pages/dispensing-psychostimulants.aspx' };
const ACT_CANBERRA_SCRIPT = { title: 'ACT Health, "Canberra Script: monitored medicines" (page updated 23 February 2022)', url: 'https://www.health.act.gov.au/canberrascript/health-practitioner-information/monitored-medicines' };
const QLD_MONITORED = { title: 'Queensland Health, "Prescribing monitored medicines" (Medicines and Poisons (Medicines) Regulation 2021, sch 2 pt 4)', url: 'https://www.health.qld.gov.au/clinical-practice/guidelines-procedures/medicines/monitored-medicines/prescribing' };
const TAS_READY_REFERENCE = { title: 'Department of Health (Tas), "Pharmacist Poisons Regulations Ready Reference" (June 2018): S8 "interval must be endorsed" r 23(5)-(7); S4D "for a repeat, the interval must be endorsed" r 41(4)(a)(vi)', url: 'http://www.dhhs.tas.gov.au/psbtas/publications/general/pharmacist_poisons_regulations_ready_reference_september_2016' };
const TAS_DECLARED = { title: 'Poisons (Declared Restricted Substances) Order 1990 (Tas), sch 1 (the S4D list)', url: 'https://www.legislation.tas.gov.au/view/whole/html/asmade/sr-1990-189' };
const WA_REQUIREMENTS = { title: 'Department of Health (WA), "Requirements for prescriptions in Western Australia" (S8: a minimum repeat dispensing interval; the patient\'s verified date of birth; Medicines and Poisons Regulations 2016)', url: 'https://www.health.wa.gov.au/Articles/A_E/Dispensing-prescriptions/Requirements-for-prescriptions-in-WA' };
const ERX_STEP_UP = { title: 'erx DESIGN.md decision 26 and issue 41 item 3 (a product rule of erx: a fresh factor before an S8 medicine is signed, in every state)' };

const OPIOIDS = ['buprenorphine', 'codeine', 'fentanyl', 'hydromorphone', 'methadone', 'morphine', 'oxycodone', 'pethidine', 'tapentadol'];
const BENZODIAZEPINES = ['alprazolam', 'bromazepam', 'clobazam', 'clonazepam', 'diazepam', 'flunitrazepam', 'lorazepam', 'midazolam', 'nitrazepam', 'oxazepam', 'temazepam'];
const Z_DRUGS = ['zolpidem', 'zopiclone'];
const PSYCHOSTIMULANTS = ['dexamfetamine', 'dexamphetamine', 'lisdexamfetamine', 'methylphenidate'];

export const STATE_RULES: readonly StateRule[] = [
  // ---- every state
  {
    id: 'all-s8-step-up', state: 'ALL', covers: { schedules: ['S8'] }, requires: 'step_up',
    message: 'A Schedule 8 medicine is signed only after a fresh second factor (step-up).', source: ERX_STEP_UP, read: RULES_READ,
    note: 'Not a state law: the product rule the issue sets. No state re-authentication rule was found in a source, so no state adds rows here.',
  },
  // ---- monitored medicines (real-time prescription monitoring)
  {
    id: 'vic-safescript-monitored', state: 'VIC', covers: { ingredients: [...OPIOIDS, ...BENZODIAZEPINES, ...Z_DRUGS, ...PSYCHOSTIMULANTS, 'ketamine', 'quetiapine', 'pregabalin', 'gabapentin', 'tramadol'], list: 'SafeScript monitored medicines' },
    requires: 'rtpm_check', message: 'is a medicine monitored by SafeScript: check SafeScript for this patient before prescribing it.', source: VIC_SAFESCRIPT, read: RULES_READ,
    note: 'The page lists examples by type; erx matches the ingredients it names. It does not say "all Schedule 8", so Schedule 8 medicines it does not name are not matched.',
  },
  {
    id: 'nsw-safescript-monitored', state: 'NSW', covers: { schedules: ['S8'], ingredients: [...OPIOIDS, 'tramadol', ...BENZODIAZEPINES, ...Z_DRUGS, ...PSYCHOSTIMULANTS, 'ketamine', 'pregabalin', 'quetiapine'], list: 'SafeScript NSW monitored medicines (Appendix E)' },
    requires: 'rtpm_check', message: 'is a medicine monitored by SafeScript NSW: check SafeScript NSW for this patient before prescribing it.', source: NSW_SAFESCRIPT, read: RULES_READ,
    note: 'Opioids and benzodiazepines are "including but not limited to" the names listed; erx matches the names listed and every Schedule 8 medicine.',
  },
  {
    id: 'act-canberra-script-monitored', state: 'ACT', covers: { schedules: ['S8'], ingredients: [...OPIOIDS, 'tramadol', ...BENZODIAZEPINES, ...Z_DRUGS, ...PSYCHOSTIMULANTS, 'ketamine', 'pregabalin', 'quetiapine', 'gabapentin'], list: 'Canberra Script monitored medicines' },
    requires: 'rtpm_check', message: 'is a medicine monitored by Canberra Script: check Canberra Script for this patient before prescribing it.', source: ACT_CANBERRA_SCRIPT, read: RULES_READ,
  },
  {
    id: 'qld-qscript-monitored', state: 'QLD', covers: { schedules: ['S8'], ingredients: [...BENZODIAZEPINES, 'codeine', 'pregabalin', 'gabapentin', 'quetiapine', 'tramadol', ...Z_DRUGS], list: 'Monitored medicines (MPMR sch 2 pt 4)' },
    requires: 'rtpm_check', message: 'is a monitored medicine in Queensland: check QScript for this patient before prescribing it.', source: QLD_MONITORED, read: RULES_READ,
    note: '"All benzodiazepines" is matched by the benzodiazepines the NSW and Victorian lists name.',
  },
  // ---- repeat intervals
  {
    id: 'nsw-s8-repeat-interval', state: 'NSW', covers: { schedules: ['S8'] }, requires: 'repeat_interval', onlyWithRepeats: true,
    message: 'is required: a Schedule 8 prescription with repeats must state the interval between supplies in New South Wales.', source: NSW_S4B, read: RULES_READ,
  },
  {
    id: 'tas-s8-repeat-interval', state: 'TAS', covers: { schedules: ['S8'] }, requires: 'repeat_interval', onlyWithRepeats: true,
    message: 'is required: a Schedule 8 prescription with repeats must state the interval between supplies in Tasmania.', source: TAS_READY_REFERENCE, read: RULES_READ,
  },
  {
    id: 'tas-s4d-repeat-interval', state: 'TAS', covers: { ingredients: ['alprazolam', 'bromazepam', 'chlordiazepoxide', 'clobazam', 'diazepam', 'lorazepam', 'nitrazepam', 'oxazepam', 'temazepam', 'flunitrazepam'], list: 'Tasmania S4D (declared restricted substances)' },
    requires: 'repeat_interval', onlyWithRepeats: true,
    message: 'is required: this is a declared restricted substance (S4D) in Tasmania, and a prescription of it with repeats must state the interval between supplies.', source: { title: `${TAS_READY_REFERENCE.title}; ${TAS_DECLARED.title}`, url: TAS_READY_REFERENCE.url }, read: RULES_READ,
    note: 'The 1990 order declares "benzodiazepine derivatives not elsewhere specified (except clonazepam and midazolam)" and names alprazolam, bromazepam and chlordiazepoxide (the stored copy was cut after item 16); erx matches those names and the benzodiazepines the monitored lists name, less clonazepam and midazolam. Anabolic steroids and the rest of the order are not matched.',
  },
  {
    id: 'wa-s8-repeat-interval', state: 'WA', covers: { schedules: ['S8'] }, requires: 'repeat_interval',
    message: 'is required: a Schedule 8 prescription in Western Australia must state a minimum repeat dispensing interval.', source: WA_REQUIREMENTS, read: RULES_READ,
    note: 'The page asks for the interval on every S8 prescription, so erx asks for it with or without repeats.',
  },
  // ---- the patient's date of birth
  {
    id: 'wa-s8-verified-date-of-birth', state: 'WA', covers: { schedules: ['S8'] }, requires: 'verified_date_of_birth',
    message: "is a Schedule 8 medicine: in Western Australia the patient's date of birth must be verified, and this patient has no IHI with a verified record (update the patient so the HI Service verifies their IHI).", source: WA_REQUIREMENTS, read: RULES_READ,
    note: "The page says \"the patient's verified date of birth\"; erx counts a date of birth verified when the patient's IHI was found with record status VERIFIED.",
  },
  // ---- permits and approvals
  {
    id: 'nsw-psychostimulant-approval', state: 'NSW', covers: { ingredients: PSYCHOSTIMULANTS, list: 'psychostimulants (cl 90)' }, requires: 'permit_reference',
    message: "is required: in New South Wales a psychostimulant is prescribed with the prescriber's NSW Health approval reference number on the prescription.", source: NSW_PSYCHOSTIMULANTS, read: RULES_READ,
  },
];
