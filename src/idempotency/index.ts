// The face of the idempotency feature: the Idempotency-Key hook and its context. Code outside
// src/idempotency/ (other features, app.ts, cli/, bench/, test/) imports only this file; its own
// files import each other directly. test/architecture/imports.test.ts holds it.
export { createIdempotencyContext, type IdempotencyContext } from './idempotency-service.ts';
export { installIdempotencyKeys } from './idempotency-hook.ts';
export { createIdempotencyRetentionStep } from './idempotency-retention.ts';
