// `erx deliveries list` (issue 38 items 4 and 8): each message shows its prescription's SCID,
// `--scid` lists one prescription's messages (a value that is not a SCID is refused, never
// looked up), and every listing is noted in the audit trail as the operator's read. Before,
// the list named only erx's own prescription id and left no trace of who had looked.
import { describe, expect, it } from 'vitest';
import { runInAuditScope } from '../../src/audit/index.ts';
import { listTokenMessages, TokenDeliveryError } from '../../src/token-delivery/index.ts';
import { auditEntriesAfter, lastAuditSeq } from '../audit/audit-helpers.ts';
import { useTestApp } from '../given.ts';
import { givenClinic, givenPrescription } from '../prescriptions/prescriptions-given.ts';

const { t, c } = useTestApp({}, async (t) => ({ c: await givenClinic(t) }));

const operatorScope = { actor: { kind: 'operator' as const, operator: 'ops' }, hpio: null, requestId: 'req_deliveries', clientAddress: null };
/** As `erx deliveries list` runs: its read is written at once. */
const asOperator = <T>(work: () => Promise<T>) => runInAuditScope(operatorScope, work, { deferred: false });

describe('erx deliveries list', () => {
  it("shows each message's SCID and filters by --scid, in any case", async () => {
    const first = await givenPrescription(t, c);
    const second = await givenPrescription(t, c, { delivery: { method: 'EMAIL', recipient_type: 'PATIENT' } });
    const all = await listTokenMessages(t.features.tokenDelivery, {});
    expect(all.map((m) => m.scid)).toEqual(expect.arrayContaining([first.scid, second.scid]));
    const one = await listTokenMessages(t.features.tokenDelivery, { scid: second.scid.toLowerCase() });
    expect(one.map((m) => [m.scid, m.channel])).toEqual([[second.scid, 'EMAIL']]);
    expect(await listTokenMessages(t.features.tokenDelivery, { scid: 'A'.repeat(18) })).toEqual([]);
  });

  it('refuses a --scid that is not a SCID, naming the option', async () => {
    for (const bad of ['', 'ABC', 'A'.repeat(19), `${'A'.repeat(17)}'`, "1' or '1'='1"]) {
      await expect(listTokenMessages(t.features.tokenDelivery, { scid: bad }), bad).rejects.toThrow(TokenDeliveryError);
      await expect(listTokenMessages(t.features.tokenDelivery, { scid: bad })).rejects.toThrow(/--scid must be a SCID: 18 letters and digits/);
    }
  });

  it('notes each listing as the operator: the count, and the SCID it was filtered by', async () => {
    const rx = await givenPrescription(t, c);
    const before = await lastAuditSeq(t);
    const all = await asOperator(() => listTokenMessages(t.features.tokenDelivery, { status: 'kept' }));
    await asOperator(() => listTokenMessages(t.features.tokenDelivery, { scid: rx.scid }));
    const reads = (await auditEntriesAfter(t, before)).filter((e) => e.action === 'admin.deliveries_read');
    expect(reads.map((e) => [e.actor_kind, e.operator, e.prescription_scid, e.detail])).toEqual([
      ['operator', 'ops', null, { count: all.length, endpoint: 'deliveries list' }],
      ['operator', 'ops', rx.scid, { count: 1, endpoint: 'deliveries list' }],
    ]);
  });
});
