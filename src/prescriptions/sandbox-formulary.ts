// A small built-in formulary for the sandbox: common medicines a prescriber can pick in the
// portal without loading a catalog first. Choosing one writes its item fields out in full, as
// a prescribe body's item_name, item_strength, ... would. Not offered in production, where
// medicines come from the organization's catalog and the prescriber's own drugs. No PBS codes:
// these entries are for trying the portal out, not for claiming subsidies.

export interface FormularyItem {
  /** Stable key of the entry (what the portal's form sends). */
  formulary_id: string;
  item_name: string;
  item_strength: string;
  item_form: string;
  route_administration: string;
  schedule_number: string;
}

export const SANDBOX_FORMULARY: readonly FormularyItem[] = [
  { formulary_id: 'amoxicillin-500-capsule', item_name: 'Amoxicillin', item_strength: '500 mg', item_form: 'Capsule', route_administration: 'Oral', schedule_number: 'S4' },
  { formulary_id: 'atorvastatin-20-tablet', item_name: 'Atorvastatin', item_strength: '20 mg', item_form: 'Tablet', route_administration: 'Oral', schedule_number: 'S4' },
  { formulary_id: 'metformin-500-tablet', item_name: 'Metformin hydrochloride', item_strength: '500 mg', item_form: 'Tablet', route_administration: 'Oral', schedule_number: 'S4' },
  { formulary_id: 'salbutamol-100-inhaler', item_name: 'Salbutamol', item_strength: '100 microgram/dose', item_form: 'Pressurised inhalation', route_administration: 'Inhalation', schedule_number: 'S3' },
  { formulary_id: 'cefalexin-500-capsule', item_name: 'Cefalexin', item_strength: '500 mg', item_form: 'Capsule', route_administration: 'Oral', schedule_number: 'S4' },
  { formulary_id: 'perindopril-5-tablet', item_name: 'Perindopril arginine', item_strength: '5 mg', item_form: 'Tablet', route_administration: 'Oral', schedule_number: 'S4' },
  { formulary_id: 'sertraline-50-tablet', item_name: 'Sertraline', item_strength: '50 mg', item_form: 'Tablet', route_administration: 'Oral', schedule_number: 'S4' },
  { formulary_id: 'paracetamol-codeine-tablet', item_name: 'Paracetamol with codeine', item_strength: '500 mg/30 mg', item_form: 'Tablet', route_administration: 'Oral', schedule_number: 'S4' },
];

export function findFormularyItem(formularyId: string): FormularyItem | undefined {
  return SANDBOX_FORMULARY.find((item) => item.formulary_id === formularyId);
}
