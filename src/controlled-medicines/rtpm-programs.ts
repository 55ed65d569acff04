// Each state's real-time prescription monitoring system, as the portal names and links it (with
// ERX_RTPM=none the prescriber checks it there and attests). Only states whose monitored list
// was found (state-rules.ts) have a row; the link is the health department's page of the system.
import type { AustralianState } from '../platform/db/stored-values.ts';

export interface RtpmProgram {
  name: string;
  url: string;
}

export const RTPM_PROGRAMS: Readonly<Partial<Record<AustralianState, RtpmProgram>>> = {
  VIC: { name: 'SafeScript', url: 'https://www.health.vic.gov.au/drugs-and-poisons/medicines-monitored-in-safescript' },
  NSW: { name: 'SafeScript NSW', url: 'https://www.health.nsw.gov.au/pharmaceutical/safescript/Pages/monitored-medicines.aspx' },
  ACT: { name: 'Canberra Script', url: 'https://www.health.act.gov.au/canberrascript/health-practitioner-information/monitored-medicines' },
  QLD: { name: 'QScript', url: 'https://www.health.qld.gov.au/clinical-practice/guidelines-procedures/medicines/qscript' },
};

/** The state's system; undefined when no list of the state was found. */
export function rtpmProgramOf(state: AustralianState | null): RtpmProgram | undefined {
  return state === null ? undefined : RTPM_PROGRAMS[state];
}
