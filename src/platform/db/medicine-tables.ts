// The medicines catalogue's tables, the PBS Schedule as last imported (see database-schema.ts
// and migration 0016).
import { flag, integer, json, text, time } from './table-columns.ts';

/** Every schedule imported; `current` marks the one pbs_items holds. */
export const pbsSchedulesColumns = {
  schedule_code: text(),
  effective_date: time(),
  /** SHA-256 of the items as imported: the same schedule imported again changes nothing. */
  digest: text(),
  item_count: integer(),
  imported_at: time(),
  current: flag().withDefault(),
} as const;

/** One prescribing item (PBS code) of the current schedule, its brands and packs folded in. */
export const pbsItemsColumns = {
  pbs_code: text(),
  drug_name: text(),
  /** JSON list of the brands that share the code. */
  brand_names: json(),
  form: text(),
  strength: text().orNull(),
  benefit_type: text<'unrestricted' | 'restricted' | 'authority_required' | 'streamlined'>(),
  program_code: text(),
  rpbs_only: flag(),
  max_quantity: integer(),
  max_repeats: integer(),
  restriction_text: text().orNull(),
  /** JSON list of the streamlined authority codes a prescription may carry. */
  streamlined_codes: json(),
  schedule_code: text(),
} as const;

/** The lower-case words a search matches by prefix, one row per (word, item). */
export const pbsItemWordsColumns = {
  word: text(),
  pbs_code: text(),
} as const;
