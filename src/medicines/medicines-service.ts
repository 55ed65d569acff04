// What the medicines catalogue does: finds a PBS item of the current schedule by its code (what
// prescribing checks a prescription against), searches the PBS items and the custom drugs a
// prescriber may use, and imports a published schedule in place of the current one.
import type { Kysely } from 'kysely';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database-schema.ts';
import type { UnitOfWork } from '../platform/db/unit-of-work.ts';
import type { Deps } from '../deps.ts';
import type { CustomDrugsContext } from '../custom-drugs/index.ts';
import { findCurrentPbsSchedule, findPbsItemByCode } from './medicines-store.ts';
import { toPbsItem, type PbsItem } from './pbs-item.ts';

export interface MedicinesContext {
  db: Kysely<Database>;
  clock: Clock;
  /** The organization's and prescriber's own drugs, searched beside the PBS items. */
  customDrugs: CustomDrugsContext;
  /** An import commits through it. */
  unitOfWork: UnitOfWork;
}

export function createMedicinesContext(deps: Pick<Deps, 'database' | 'clock'>, features: { customDrugs: CustomDrugsContext; unitOfWork: UnitOfWork }): MedicinesContext {
  return { db: deps.database, clock: deps.clock, ...features };
}

/** PBS codes are 4 to 6 upper-case letters and digits (e.g. 1234K, 10754J). */
const PBS_CODE = /^[0-9A-Z]{4,6}$/;

/** The item of the current schedule with this PBS code (any case), or undefined. */
export async function findPbsItem(ctx: MedicinesContext, pbsCode: string): Promise<PbsItem | undefined> {
  const code = pbsCode.trim().toUpperCase();
  if (!PBS_CODE.test(code)) return undefined;
  const row = await findPbsItemByCode(ctx.db, code);
  return row ? toPbsItem(row) : undefined;
}

/** The schedule the catalogue holds now, or undefined before the first import. */
export async function describeCurrentSchedule(ctx: MedicinesContext): Promise<{ schedule_code: string; effective_date: string; item_count: number; imported_at: string } | undefined> {
  const row = await findCurrentPbsSchedule(ctx.db);
  return row ? { schedule_code: row.schedule_code, effective_date: row.effective_date, item_count: row.item_count, imported_at: row.imported_at } : undefined;
}
