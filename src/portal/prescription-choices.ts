// The choices the prescription pages offer: medicines (the PBS items of the current schedule,
// the organization catalog and the prescriber's own custom drugs, as the database found them for
// the search), and where the token can go (the patient by SMS or e-mail, or a pharmacy).
import type { CustomDrug, DrugLevel } from '../custom-drugs/index.ts';
import { PBS_BENEFIT_TYPE_LABELS, type MedicineSearchResult, type PbsItem } from '../medicines/index.ts';
import { type PatientContact, SANDBOX_PHARMACIES, type Delivery } from '../prescriptions/index.ts';
import { medicineValueOfDrug, medicineValueOfPbsItem } from './prescription-form.ts';

export interface Choice {
  value: string;
  label: string;
  selected: boolean;
  disabled: boolean;
}

export interface MedicineGroup {
  label: string;
  options: Choice[];
}

/** PBS items, and custom drugs, listed for one search (each; the chosen one is always shown). */
export const MEDICINES_LISTED = 50;

function labelOfDrug(drug: CustomDrug): string {
  const name = [drug.item_generic_name, drug.item_strength, drug.item_form].filter(Boolean).join(' ');
  const brand = drug.item_trade_name ?? drug.brand_name;
  return brand ? `${name} (${brand})` : name;
}

/** "Amoxicillin Capsule 500 mg (Amoxil, ...)": the item as a prescriber names it. */
export function nameOfPbsItem(item: PbsItem): string {
  const name = [item.drug_name, item.form, item.strength].filter(Boolean).join(' ');
  return item.brand_names.length > 0 ? `${name} (${item.brand_names.join(', ')})` : name;
}

/** The PBS facts a prescriber chooses by, in words a screen reader reads out with the name. */
export function factsOfPbsItem(item: PbsItem): string {
  const repeats = `${item.max_repeats} ${item.max_repeats === 1 ? 'repeat' : 'repeats'}`;
  return `PBS ${item.pbs_code}, ${PBS_BENEFIT_TYPE_LABELS[item.benefit_type]}, max quantity ${item.max_quantity}, ${repeats}${item.rpbs_only ? ', RPBS only (DVA patients)' : ''}`;
}

/** A PBS item the search found, with what the page shows beside the list. */
export interface PbsItemFound {
  value: string;
  name: string;
  facts: string;
  restrictionText: string | null;
  streamlinedCodes: string[];
}

export function pbsItemsFoundOf(result: MedicineSearchResult): PbsItemFound[] {
  return result.pbsItems.map((item) => ({
    value: medicineValueOfPbsItem(item.pbs_code),
    name: nameOfPbsItem(item),
    facts: factsOfPbsItem(item),
    restrictionText: item.restriction_text,
    streamlinedCodes: item.streamlined_codes,
  }));
}

/** The medicine groups of what the search found, the chosen one selected. */
export function medicineGroupsOf(result: { pbsItems: PbsItem[]; customDrugs: Array<CustomDrug & { level: DrugLevel }> }, options: { selected: string }): MedicineGroup[] {
  const asCandidate = (drug: CustomDrug) => ({ value: medicineValueOfDrug(drug.custom_drug_id), label: labelOfDrug(drug) });
  const drugs = result.customDrugs;
  const sources: Array<{ label: string; candidates: Array<{ value: string; label: string }> }> = [
    { label: 'PBS Schedule', candidates: result.pbsItems.map((item) => ({ value: medicineValueOfPbsItem(item.pbs_code), label: `${nameOfPbsItem(item)}: ${factsOfPbsItem(item)}` })) },
    { label: "Your organization's catalog", candidates: drugs.filter((d) => d.level === 'organization').map(asCandidate) },
    { label: 'Your own drugs', candidates: drugs.filter((d) => d.level === 'user').map(asCandidate) },
  ];
  return sources.flatMap(({ label, candidates }) =>
    candidates.length > 0 ? [{ label, options: candidates.map((c) => ({ ...c, selected: c.value === options.selected, disabled: false })) }] : [],
  );
}

/** Every way the token can go, those the patient's record cannot serve shown but disabled. */
export function deliveryChoicesOf(patient: PatientContact, selected: string): Choice[] {
  const toPatient = [
    { value: 'patient-sms', label: patient.phone ? `Patient by SMS (${patient.phone})` : 'Patient by SMS (no mobile number on record)', disabled: !patient.phone },
    { value: 'patient-email', label: patient.email ? `Patient by e-mail (${patient.email})` : 'Patient by e-mail (no e-mail address on record)', disabled: !patient.email },
  ];
  const toPharmacy = SANDBOX_PHARMACIES.flatMap((pharmacy) => [
    { value: `pharmacy-email:${pharmacy.pharmacy_id}`, label: `${pharmacy.name} by e-mail`, disabled: false },
    { value: `pharmacy-sms:${pharmacy.pharmacy_id}`, label: `${pharmacy.name} by SMS`, disabled: false },
  ]);
  const all = [...toPatient, ...toPharmacy];
  const chosen = all.find((c) => c.value === selected && !c.disabled) ?? all.find((c) => !c.disabled);
  return all.map((c) => ({ ...c, selected: c === chosen }));
}

/** The current delivery as one of the choices above (to preselect it for a reissue). */
export function choiceOfDelivery(delivery: Delivery): string {
  const method = delivery.method === 'SMS' ? 'sms' : 'email';
  return delivery.pharmacy ? `pharmacy-${method}:${delivery.pharmacy.pharmacy_id}` : `patient-${method}`;
}

/** The delivery in words: "SMS to the patient (0412345678)". */
export function describeDelivery(delivery: Delivery): string {
  const how = delivery.method === 'SMS' ? 'SMS' : 'E-mail';
  const to = delivery.pharmacy ? delivery.pharmacy.name : 'the patient';
  return `${how} to ${to} (${delivery.destination})`;
}
