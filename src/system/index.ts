// The face of the system feature: health, readiness, and backups of the embedded database. Code
// outside src/system/ (other features, app.ts, cli/, bench/, test/) imports only this file; its
// own files import each other directly. test/architecture/imports.test.ts holds it.
export { createSystemContext, reportReadiness, type SystemContext, watchDispatcher } from './system-service.ts';
export { CHECK_TIMEOUT_MS, type ReadinessReport } from './readiness-checks.ts';
export { systemRoutes } from './system-routes.ts';
export { backupDatabase, BackupError, type BackupOptions, type BackupResult, type BackupSigner } from './backup-service.ts';
export { restoreDatabase, type RestoreOptions, type RestoreResult } from './restore-service.ts';
