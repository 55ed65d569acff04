// Reads of what others did are recorded too (issue 38 item 4): an operator listing or exporting
// the audit trail, reading webhook events or attempts, and a partner listing its events through
// self-service. Before, each left nothing, so the trail did not say who had looked at it.
import { describe, expect, it } from 'vitest';
import { exportAuditEventsAsFhir, listAuditEntries, runInAuditScope } from '../../src/audit/index.ts';
import { listWebhookAttempts, listWebhookEvents, parseEventFilter } from '../../src/webhooks/index.ts';
import { givenIntegration, useTestApp } from '../given.ts';
import { recordEventFor } from '../webhooks/webhooks-given.ts';
import { auditEntriesAfter, lastAuditSeq } from './audit-helpers.ts';

const operatorScope = { actor: { kind: 'operator' as const, operator: 'ops' }, hpio: null, requestId: 'req_reads', clientAddress: null };
/** As an `erx` command runs: its reads are written at once. */
const asOperator = <T>(work: () => Promise<T>) => runInAuditScope(operatorScope, work, { deferred: false });

describe('recorded reads', () => {
  const { t } = useTestApp({});

  it('erx audit list and export leave admin.audit_read with the count', async () => {
    await t.features.audit.noteAccess({ action: 'patient.read', organizationId: 'org-x', patientId: 'p-1' });
    const before = await lastAuditSeq(t);
    const listed = await asOperator(() => listAuditEntries(t.features.audit, { patient: 'p-1' }));
    const lines: string[] = [];
    const exported = await asOperator(() => exportAuditEventsAsFhir(t.features.audit, {}, (line) => void lines.push(line)));
    expect(lines).toHaveLength(exported.exported);
    const reads = (await auditEntriesAfter(t, before)).filter((e) => e.action === 'admin.audit_read');
    expect(reads.map((e) => [e.actor_kind, e.operator, e.patient_id, e.detail])).toEqual([
      ['operator', 'ops', 'p-1', { count: listed.length, endpoint: 'audit list' }],
      ['operator', 'ops', null, { count: exported.exported, endpoint: 'audit export' }],
    ]);
  });

  it('webhook events and attempts read by an operator or a partner leave webhook.history_read', async () => {
    const g = await givenIntegration(t);
    await recordEventFor(t.features.webhooks, g);
    const before = await lastAuditSeq(t);
    const events = await asOperator(() => listWebhookEvents(t.features.webhooks, parseEventFilter({ partner: g.partnerId })));
    expect(events.length).toBeGreaterThan(0);
    await asOperator(() => listWebhookAttempts(t.features.webhooks, events[0]!.event_id));
    const partner = await t.app.inject({ method: 'GET', url: '/v1/partner/webhook-events', headers: { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret } });
    expect(partner.statusCode).toBe(200);
    const shown = await t.app.inject({ method: 'GET', url: `/v1/partner/webhook-events/${events[0]!.event_id}`, headers: { 'x-partner-id': g.partnerId, 'x-partner-secret': g.partnerSecret } });
    expect(shown.statusCode).toBe(200);
    const reads = (await auditEntriesAfter(t, before)).filter((e) => e.action === 'webhook.history_read');
    expect(reads.map((e) => [e.actor_kind, e.detail?.partnerId, e.detail?.subjectId ?? null])).toEqual([
      ['operator', g.partnerId, null],
      ['operator', g.partnerId, events[0]!.event_id],
      ['partner', g.partnerId, null],
      ['partner', g.partnerId, events[0]!.event_id],
    ]);
  });
});
