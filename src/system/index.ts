// The face of the system feature: health, readiness, and backups of the embedded database. Code
// outside src/system/ (other features, app.ts, cli/, scripts/) imports only this file; its
// own files import each other directly. test/architecture/imports.test.ts holds it.
export { createSystemContext, type SystemContext, watchDispatcher } from './system-service.ts';
export { systemRoutes } from './system-routes.ts';
export { backupDatabase, BackupError } from './backup-service.ts';
export { restoreDatabase } from './restore-service.ts';
export { listBeforeRestoreCopies, pruneBeforeRestoreCopies } from './before-restore-copies.ts';
