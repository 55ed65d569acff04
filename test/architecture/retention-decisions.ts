// The check behind retention-decisions.test.ts, apart so that it can be tried on planted
// schemas: every table of the schema has a retention decision, a step that prunes it or a line
// that keeps it for ever and says why; no line names a table that is not there; no table is both.
export interface RetentionDecisions {
  steps: ReadonlyArray<{ name: string; tables: readonly string[] }>;
  keptForEver: ReadonlyArray<{ table: string; because: string }>;
}

export interface RetentionFindings {
  /** Tables with neither a step nor a kept-for-ever line. */
  undecided: string[];
  /** Kept-for-ever lines or step tables naming no table of the schema. */
  unknown: string[];
  /** Tables a step prunes that a line also says are kept for ever. */
  both: string[];
  /** Kept-for-ever lines that do not say why. */
  unexplained: string[];
}

export function checkRetentionDecisions(tables: readonly string[], decisions: RetentionDecisions): RetentionFindings {
  const pruned = new Set(decisions.steps.flatMap((step) => step.tables));
  const kept = new Set(decisions.keptForEver.map((line) => line.table));
  const inSchema = new Set(tables);
  return {
    undecided: tables.filter((table) => !pruned.has(table) && !kept.has(table)),
    unknown: [...new Set([...pruned, ...kept])].filter((table) => !inSchema.has(table)),
    both: [...pruned].filter((table) => kept.has(table)),
    unexplained: decisions.keptForEver.filter((line) => line.because.trim().length < 20).map((line) => line.table),
  };
}
