// What a prescription must state, as data: one row per item a script carries, with what
// requires it and where that was read. The PDF of a paper prescription prints exactly these
// rows (prescription-pdf.ts), the portal and the token page show the s41A rows, and the tests
// read every row back out of the PDF. Sources were read through stored copies of the pages
// named, on the date given; where a source was cut short or unclear the row's note says so.

/** The items a script states (the keys of scriptItemsOf's answer). */
export const SCRIPT_ITEMS = [
  'benefit', 'prescriber_name', 'practice_address', 'practice_phone', 'prescriber_number', 'prescriber_hpii', 'organization_hpio',
  'patient_name', 'patient_date_of_birth', 'patient_address', 'patient_medicare_or_dva', 'date_written',
  'medicine', 'directions', 'quantity', 'repeats', 'repeat_interval', 'authority', 'permit_reference', 'brand_substitution', 'regulation_24',
  'signature', 'scid', 'conformance_id', 'unique_id',
] as const;
export type ScriptItem = (typeof SCRIPT_ITEMS)[number];

export interface ScriptContentRule {
  item: ScriptItem;
  /** The words printed before the value. */
  label: string;
  /** What must be stated, in one sentence. */
  requirement: string;
  /** Act, regulation or department page. */
  source: string;
  /** When the source was read (YYYY-MM-DD). */
  read: string;
  /** Where the source was unclear, or how erx reads it. */
  note?: string;
}

const READ = '2026-11-28';
const S40 = 'National Health (Pharmaceutical Benefits) Regulations 2017 (Cth), s 40(1)';
const S41A = 'National Health (Pharmaceutical Benefits) Regulations 2017 (Cth), s 41A';
const SERVICES_AUSTRALIA = 'Services Australia, "Prescribing PBS medicines" (what to include on the prescription)';
const PBS_NOTES = 'PBS Schedule explanatory notes, section 1.2 "Prescribing medicines: information for PBS prescribers" (page updated 3 April 2024)';
const NSW_35 = 'Poisons and Therapeutic Goods Regulation 2008 (NSW), cl 35 (form of prescription for a restricted substance)';
const SA_34 = 'Controlled Substances (Poisons) Regulations 2011 (SA), reg 34 (written prescriptions)';
const ACT_41 = 'Medicines, Poisons and Therapeutic Goods Regulation 2008 (ACT), s 41 (particulars for prescriptions)';
const S40_CUT = 's 40(1)(j) onwards and s 40(2) (the form) were cut short in the stored text read; the form rule is taken from the PBS notes and the repealed 1960 Regulations, reg 19, which s 40 replaced.';

export const SCRIPT_CONTENT_RULES: readonly ScriptContentRule[] = [
  { item: 'benefit', label: 'Benefit', requirement: 'Whether the medicine is prescribed under the PBS or the RPBS, or privately.', source: `${SERVICES_AUSTRALIA}; ${PBS_NOTES}`, read: READ,
    note: 'erx prints Private for a private prescription or one without a PBS code, RPBS for a patient with a DVA file number, PBS otherwise. Whether a White Card holder\'s prescription is RPBS depends on the condition treated, which erx does not know: the prescriber ticks private or leaves the PBS code out when it is not.' },
  { item: 'prescriber_name', label: 'Prescriber', requirement: "The prescriber's name.", source: `${SERVICES_AUSTRALIA}; ${NSW_35}; ${SA_34}; ${ACT_41}`, read: READ, note: S40_CUT },
  { item: 'practice_address', label: 'Practice address', requirement: "The address of the practice the prescription is written at.", source: `${SERVICES_AUSTRALIA}; ${NSW_35}; ${SA_34}; ${ACT_41}`, read: READ, note: S40_CUT },
  { item: 'practice_phone', label: 'Practice phone', requirement: "The practice's telephone number.", source: `${NSW_35}; ${SA_34}; ${ACT_41}; ${PBS_NOTES}`, read: READ },
  { item: 'prescriber_number', label: 'Prescriber number', requirement: "The prescriber's PBS prescriber number.", source: `${SERVICES_AUSTRALIA}; ${S40}(a) (the approval number of a dentist, optometrist, midwife or nurse practitioner)`, read: READ },
  { item: 'prescriber_hpii', label: 'HPI-I', requirement: "The prescriber's healthcare identifier (HPI-I), if any.", source: `${S41A}(b)(i)`, read: READ,
    note: 's 41A applies to electronic prescriptions; erx states it on paper ones too, as the issue asks (every script).' },
  { item: 'organization_hpio', label: 'HPI-O', requirement: "The healthcare identifier (HPI-O) of the organization the prescriber is linked to.", source: `${S41A}(b)(ii)`, read: READ },
  { item: 'patient_name', label: 'Patient', requirement: 'The name of the person the medicine is prescribed for.', source: `${S40}(b)`, read: READ },
  { item: 'patient_date_of_birth', label: 'Date of birth', requirement: "The patient's date of birth.", source: NSW_35, read: READ },
  { item: 'patient_address', label: 'Address', requirement: "The patient's residential address.", source: `${S40}(b)`, read: READ },
  { item: 'patient_medicare_or_dva', label: 'Medicare / DVA', requirement: "The patient's Medicare number, or veterans' entitlement (DVA file) number.", source: SERVICES_AUSTRALIA, read: READ },
  { item: 'date_written', label: 'Date', requirement: 'The date the prescription is written (never forward- or back-dated).', source: `${S40}(h); ${SERVICES_AUSTRALIA}`, read: READ,
    note: "The date is the practice's local date (its state's time zone) at the moment erx recorded the prescription." },
  { item: 'medicine', label: 'Medicine', requirement: 'The medicine, its strength and form.', source: `${S40}(d); ${SERVICES_AUSTRALIA}`, read: READ, note: 's 40(2A), how the benefit is identified, was not in the stored text read.' },
  { item: 'directions', label: 'Directions', requirement: 'The dose and directions for use.', source: `${SERVICES_AUSTRALIA}; ${NSW_35}(d)`, read: READ, note: "erx prints the prescription's patient instructions; the prescriber writes them." },
  { item: 'quantity', label: 'Quantity', requirement: 'The quantity or number of units to be supplied.', source: `${S40}(e)(i)`, read: READ },
  { item: 'repeats', label: 'Repeats', requirement: 'How many times the supply may be repeated.', source: `${S40}(e)(ii)`, read: READ },
  { item: 'repeat_interval', label: 'Repeat interval', requirement: 'The interval between supplies, when the prescriber sets one.', source: `${NSW_35}(f) (special restricted substances)`, read: READ },
  { item: 'authority', label: 'Authority approval number / streamlined code', requirement: 'For an authority prescription: each authority approval number, or the streamlined authority code.', source: `${S40}(i)`, read: READ },
  { item: 'permit_reference', label: 'Permit / approval number', requirement: "The state's permit, approval or authority number for a controlled medicine, where the state's rules ask for one (src/controlled-medicines/state-rules.ts, requirement permit_reference).", source: 'Poisons and Therapeutic Goods Regulation 2008 (NSW), cl 90 (NSW Health, "Dispensing psychostimulants": the approval reference number on the prescription)', read: READ,
    note: 'Printed whenever the prescription carries controlled_substance_reference; the state rules say when it must.' },
  { item: 'brand_substitution', label: 'Brand substitution', requirement: 'Whether brand substitution is not permitted, when that applies.', source: SERVICES_AUSTRALIA, read: READ },
  { item: 'regulation_24', label: 'Regulation 24', requirement: 'When the original and every repeat are to be supplied at once: "Regulation 24" on the prescription.', source: `${S40}(j) and s 49; ${SERVICES_AUSTRALIA} ("Reg 24", "Regulation 24", "one supply" or "1 supply")`, read: READ,
    note: 's 40(1)(j) was cut short in the stored text; Services Australia also asks the prescriber to initial it, which the signature area leaves room for.' },
  { item: 'signature', label: 'Signature', requirement: 'The prescriber signs the prescription after it is prepared.', source: `${S40}(g)`, read: READ },
  { item: 'scid', label: 'SCID', requirement: 'An electronic transfer paper script carries its SCID as a barcode for the pharmacy to scan.', source: 'Issue 40 (ETP paper scripts)', read: READ,
    note: 'Only a script a PDS took has a SCID (DESIGN decision 25); a paper prescription written without one carries no barcode. No public source for the barcode symbology was found; erx prints Code 128 as the issue asks, with the SCID in text beneath.' },
  { item: 'conformance_id', label: 'Conformance ID', requirement: 'The conformance identifier of the software that prepared the prescription, in its metadata.', source: `${S41A}(a)(i)`, read: READ },
  { item: 'unique_id', label: 'Prescription ID', requirement: 'A unique identifier of the prescription generated by that software, in its metadata.', source: `${S41A}(a)(ii)`, read: READ },
];

/** The rule of one item (every item has one row). */
export function ruleOf(item: ScriptItem): ScriptContentRule {
  return SCRIPT_CONTENT_RULES.find((rule) => rule.item === item)!;
}
