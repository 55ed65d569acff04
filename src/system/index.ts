// The face of the system feature: health and readiness. Code outside src/system/ (other features,
// app.ts, cli/, bench/, test/) imports only this file; its own files import each other directly.
// test/architecture/imports.test.ts holds it.
export { createSystemContext, type SystemContext } from './system-service.ts';
export { systemRoutes } from './system-routes.ts';
