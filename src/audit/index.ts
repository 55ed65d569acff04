// The audit trail's face: what services record (auditRecords through the unit of work, or
// noteAccess for reads and HI lookups), the scope a request or command runs in, and the
// operator's service (list, verify, export, prune).
export { type AuditAction } from './audit-actions.ts';
export { maskIdentifier, type AuditDetail, type AuditEvent } from './audit-entry.ts';
export { currentAuditScope, identifyAuditActor, runInAuditScope } from './audit-scope.ts';
export { auditRecords, createAuditTrail, type AuditTrail } from './audit-trail.ts';
export { installAuditScope } from './audit-hooks.ts';
export { AuditError, listAuditEntries, pruneAuditTrail, readChainPoint, verifyAuditChain, type AuditEntryView, type AuditListInput } from './audit-service.ts';
export { exportAuditEventsAsFhir } from './audit-fhir.ts';
export { createSecurityAlerts, type SecurityAlerts } from './security-alerts.ts';
export { listSecurityAlerts } from './security-alerts-service.ts';
export { createSecurityAlertRetentionStep } from './security-alerts-retention.ts';
