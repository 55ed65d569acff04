// The audit trail's face: what services record (auditRecords through the unit of work, or
// noteAccess for reads and HI lookups), the scope a request or command runs in, and the
// operator's service (list, verify, export, prune).
export { AUDIT_ACTIONS, isAuditAction, type AuditAction } from './audit-actions.ts';
export { maskIdentifier, type AuditActor, type AuditDetail, type AuditEvent, type MaskedIdentifier } from './audit-entry.ts';
export { currentAuditScope, identifyAuditActor, runInAuditScope, type AuditScope } from './audit-scope.ts';
export { auditRecords, createAuditTrail, DEFAULT_AUDIT_RETENTION_YEARS, type AuditTrail } from './audit-trail.ts';
export { installAuditScope } from './audit-hooks.ts';
export { AuditError, listAuditEntries, pruneAuditTrail, readChainPoint, verifyAuditChain, type AuditEntryView, type AuditListInput, type AuditPruned, type ChainVerified } from './audit-service.ts';
export { exportAuditEventsAsFhir, toFhirAuditEvent } from './audit-fhir.ts';
export { chainEntries, GENESIS_HASH, type StoredAuditEntry } from './audit-chain.ts';
export { createSecurityAlerts, DEFAULT_SECURITY_ALERT_RETENTION_DAYS, shortHashOf, type SecurityAlert, type SecurityAlerts } from './security-alerts.ts';
export { listSecurityAlerts, type SecurityAlertView } from './security-alerts-service.ts';
export { createSecurityAlertRetentionStep } from './security-alerts-retention.ts';
