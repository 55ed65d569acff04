// A table's lifetime is a visible decision: every table of the schema (the one list,
// src/platform/db/database-schema.ts) is pruned by a retention step some feature registers in
// features.ts, or has a line there that keeps it for ever and says why. The check itself is
// tried on planted schemas: a new table with no decision fails it.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { KEPT_FOR_EVER, retentionStepsOf } from '../../src/features.ts';
import { text } from '../../src/platform/db/table-columns.ts';
import { TABLES } from '../../src/platform/db/database-schema.ts';
import { checkRetentionDecisions, type RetentionDecisions } from './retention-decisions.ts';

const steps = retentionStepsOf(loadConfig({}), { idleTimeoutSeconds: 1_800 });
const decisions: RetentionDecisions = { steps, keptForEver: KEPT_FOR_EVER };
const noFindings = { undecided: [], unknown: [], both: [], unexplained: [] };

describe('retention decisions', () => {
  it('every table of the schema has a retention step or a kept-for-ever line with its reason', () => {
    expect(Object.keys(TABLES).length).toBeGreaterThan(20);
    expect(checkRetentionDecisions(Object.keys(TABLES), decisions)).toEqual(noFindings);
  });

  it('token_messages has a step of its own, and no feature prunes through another: each step names its tables', () => {
    expect(steps.find((step) => step.tables.includes('token_messages'))?.name).toBe('token_message_destinations');
    expect(steps.every((step) => step.tables.length > 0 && step.kinds.length > 0)).toBe(true);
  });

  it('fails on a planted table that has neither', () => {
    const planted = { ...TABLES, planted_table: { id: text(), secret: text() } };
    expect(checkRetentionDecisions(Object.keys(planted), decisions)).toEqual({ ...noFindings, undecided: ['planted_table'] });
  });

  it('passes the planted table once it has a step, or a kept-for-ever line that says why', () => {
    const tables = [...Object.keys(TABLES), 'planted_table'];
    const withStep = { ...decisions, steps: [...steps, { name: 'planted_table', tables: ['planted_table'] }] };
    const withLine = { ...decisions, keptForEver: [...KEPT_FOR_EVER, { table: 'planted_table', because: 'a factor lives as long as its user, who is never deleted' }] };
    expect(checkRetentionDecisions(tables, withStep)).toEqual(noFindings);
    expect(checkRetentionDecisions(tables, withLine)).toEqual(noFindings);
  });

  it('fails on a line without a reason, a line naming no table, and a table both pruned and kept', () => {
    const tables = Object.keys(TABLES);
    const bad: RetentionDecisions = {
      steps,
      keptForEver: [...KEPT_FOR_EVER, { table: 'dropped_table', because: 'it was dropped in a later migration' }, { table: 'token_messages', because: '' }],
    };
    expect(checkRetentionDecisions(tables, bad)).toEqual({ undecided: [], unknown: ['dropped_table'], both: ['token_messages'], unexplained: ['token_messages'] });
  });
});
