// The audit trail's face: what services record (auditRecords through the unit of work, or
// noteAccess for reads and HI lookups), the scope a request or command runs in, and the
// operator's service (list, verify, export).
export { AUDIT_ACTIONS, isAuditAction, type AuditAction } from './audit-actions.ts';
export { maskIdentifier, type AuditActor, type AuditDetail, type AuditEvent, type MaskedIdentifier } from './audit-entry.ts';
export { currentAuditScope, identifyAuditActor, runInAuditScope, type AuditScope } from './audit-scope.ts';
export { auditRecords, createAuditTrail, type AuditTrail } from './audit-trail.ts';
export { installAuditScope } from './audit-hooks.ts';
