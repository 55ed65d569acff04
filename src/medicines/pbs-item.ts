// A PBS item as the rest of erx reads it: one prescribing code of the current schedule with the
// facts a prescription is checked against (benefit type, program, maximum quantity and repeats,
// streamlined authority codes).
import type { PbsItemRow } from './medicines-store.ts';

/** How the PBS subsidises an item (items.csv benefit_type_code U, R, A, S). */
export type PbsBenefitType = 'unrestricted' | 'restricted' | 'authority_required' | 'streamlined';

export const PBS_BENEFIT_TYPES: readonly PbsBenefitType[] = ['unrestricted', 'restricted', 'authority_required', 'streamlined'];

/** The benefit type in words, as the portal shows it. */
export const PBS_BENEFIT_TYPE_LABELS: Readonly<Record<PbsBenefitType, string>> = {
  unrestricted: 'Unrestricted benefit',
  restricted: 'Restricted benefit',
  authority_required: 'Authority required',
  streamlined: 'Authority required (streamlined)',
};

export interface PbsItem {
  pbs_code: string;
  drug_name: string;
  brand_names: string[];
  form: string;
  strength?: string;
  benefit_type: PbsBenefitType;
  /** The PBS program (programs.csv), e.g. GE general schedule, R1 Repatriation PBS. */
  program_code: string;
  /** Subsidised only for veterans (RPBS): only for a patient with a DVA file number. */
  rpbs_only: boolean;
  /** Most units (tablets, mL, ...) one prescription may order without an authority number. */
  max_quantity: number;
  max_repeats: number;
  /** The restriction (and authority) text a prescriber must satisfy; null when unrestricted. */
  restriction_text: string | null;
  /** For a streamlined item, the authority codes a prescription may carry (one of them). */
  streamlined_codes: string[];
  /** The schedule the item was imported from (schedules.csv schedule_code). */
  schedule_code: string;
}

export function toPbsItem(row: PbsItemRow): PbsItem {
  const item: PbsItem = {
    pbs_code: row.pbs_code,
    drug_name: row.drug_name,
    brand_names: JSON.parse(row.brand_names) as string[],
    form: row.form,
    benefit_type: row.benefit_type,
    program_code: row.program_code,
    rpbs_only: row.rpbs_only === 1,
    max_quantity: row.max_quantity,
    max_repeats: row.max_repeats,
    restriction_text: row.restriction_text,
    streamlined_codes: JSON.parse(row.streamlined_codes) as string[],
    schedule_code: row.schedule_code,
  };
  if (row.strength !== null) item.strength = row.strength;
  return item;
}
