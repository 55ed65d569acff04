// The face of the idempotency feature: the Idempotency-Key hook and its context. Code outside
// src/idempotency/ (other features, app.ts, cli/, scripts/) imports only this file, and the face exports only what they use (tests and the bench may import its own files); its own
// files import each other directly. test/architecture/imports.test.ts holds it.
export { createIdempotencyContext, type IdempotencyContext } from './idempotency-service.ts';
export { installIdempotencyKeys } from './idempotency-hook.ts';
export { textField, type IdempotentCreate } from './idempotency-replay-audit.ts';
export { createIdempotencyRetentionStep } from './idempotency-retention.ts';
