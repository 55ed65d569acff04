// The prescriber's medicine search: the PBS items of the current schedule and the custom drugs
// the prescriber may use (the organization's catalog and their own, never another user's or
// organization's), each asked of the database for one bounded page. PBS items match when every
// word of the search starts a word of their generic name, brands, form, strength or code, in
// any case ("amox 500" finds Amoxicillin capsule 500 mg).
import { searchDrugsVisibleToUser, type CustomDrug, type DrugLevel } from '../custom-drugs/index.ts';
import type { MedicinesContext } from './medicines-service.ts';
import { findPbsItemByCode, searchPbsItemsByWordPrefixes } from './medicines-store.ts';
import { toPbsItem, type PbsItem } from './pbs-item.ts';
import { searchPrefixesOf } from './search-words.ts';

/** Who searches: the organization and the prescriber whose custom drugs are included. */
export interface MedicineSearcher {
  organizationId: string;
  userId: string;
}

export interface MedicineSearch {
  search: string;
  /** Most PBS items and most custom drugs listed (each). */
  limit: number;
  /** A chosen custom drug to list whether it matches or not (if the searcher may use it). */
  alsoCustomDrugId?: string | undefined;
  /** A chosen PBS code to list whether it matches or not (if the schedule has it). */
  alsoPbsCode?: string | undefined;
}

export interface MedicineSearchResult {
  pbsItems: PbsItem[];
  customDrugs: Array<CustomDrug & { level: DrugLevel }>;
  /** More PBS items or custom drugs match than are listed. */
  more: boolean;
}

/** Most results per kind one search may ask for. */
export const MEDICINE_SEARCH_MAX_LIMIT = 50;

async function searchPbsItems(ctx: MedicinesContext, search: string, limit: number, alsoCode: string | undefined): Promise<{ items: PbsItem[]; more: boolean }> {
  const rows = await searchPbsItemsByWordPrefixes(ctx.db, searchPrefixesOf(search), limit + 1);
  const listed = rows.slice(0, limit);
  const code = alsoCode?.trim().toUpperCase();
  if (code && /^[0-9A-Z]{4,6}$/.test(code) && !listed.some((row) => row.pbs_code === code)) {
    const chosen = await findPbsItemByCode(ctx.db, code);
    if (chosen) listed.push(chosen);
  }
  return { items: listed.map(toPbsItem), more: rows.length > limit };
}

/**
 * The PBS items and custom drugs matching `query.search`, at most `limit` of each; an empty
 * search lists the first of each (the prescriber narrows them by searching).
 */
export async function searchMedicines(ctx: MedicinesContext, searcher: MedicineSearcher, query: MedicineSearch): Promise<MedicineSearchResult> {
  const limit = Math.max(1, Math.min(MEDICINE_SEARCH_MAX_LIMIT, Math.floor(query.limit)));
  const search = query.search.trim().slice(0, 100);
  const [pbs, custom] = await Promise.all([
    searchPbsItems(ctx, search, limit, query.alsoPbsCode),
    searchDrugsVisibleToUser(ctx.customDrugs, searcher, { search, limit, alsoId: query.alsoCustomDrugId }),
  ]);
  return { pbsItems: pbs.items, customDrugs: custom.drugs, more: pbs.more || custom.more };
}
