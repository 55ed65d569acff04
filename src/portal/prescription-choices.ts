// The choices the prescription pages offer: medicines (the organization catalog, the
// prescriber's own custom drugs, as the database found them for the search, and, in the
// sandbox, the built-in formulary, narrowed here), and where the token can go (the patient by
// SMS or e-mail, or a pharmacy).
import type { CustomDrug, DrugLevel } from '../custom-drugs/index.ts';
import { type PatientContact, SANDBOX_PHARMACIES, type Delivery, SANDBOX_FORMULARY } from '../prescriptions/index.ts';
import { medicineValueOfDrug, medicineValueOfFormulary } from './prescription-form.ts';

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

/** Custom drugs listed for one search (catalog and own together; the chosen one is always shown). */
export const MEDICINES_LISTED = 50;

function labelOfDrug(drug: CustomDrug): string {
  const name = [drug.item_generic_name, drug.item_strength, drug.item_form].filter(Boolean).join(' ');
  const brand = drug.item_trade_name ?? drug.brand_name;
  return brand ? `${name} (${brand})` : name;
}

interface Candidate {
  value: string;
  label: string;
}

/** The sandbox formulary's entries matching `search` (a short fixed list, so narrowed here), and the chosen one. */
function formularyMatching(search: string, selected: string): Candidate[] {
  const needle = search.toLowerCase();
  const all = SANDBOX_FORMULARY.map((item) => ({ value: medicineValueOfFormulary(item.formulary_id), label: `${item.item_name} ${item.item_strength} ${item.item_form}` }));
  return needle === '' ? all : all.filter((c) => c.label.toLowerCase().includes(needle) || c.value === selected);
}

/** The medicine groups of the drugs the search found (and the formulary's matches), the chosen one selected. */
export function medicineGroupsOf(
  drugs: Array<CustomDrug & { level: DrugLevel }>,
  options: { formularyOffered: boolean; search: string; selected: string },
): MedicineGroup[] {
  const asCandidate = (drug: CustomDrug) => ({ value: medicineValueOfDrug(drug.custom_drug_id), label: labelOfDrug(drug) });
  const sources: Array<{ label: string; candidates: Candidate[] }> = [
    { label: "Your organization's catalog", candidates: drugs.filter((d) => d.level === 'organization').map(asCandidate) },
    { label: 'Your own drugs', candidates: drugs.filter((d) => d.level === 'user').map(asCandidate) },
  ];
  if (options.formularyOffered) sources.push({ label: 'Sandbox formulary', candidates: formularyMatching(options.search, options.selected) });
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
