// `reply.success(status, message, data)`: the one way a handler answers, so every success
// body is the spec's envelope with this request's id and the injected clock's time; a list
// that pages answers with `reply.successPage`, which adds `pagination` beside `data`.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../clock.ts';
import { buildSuccessEnvelope, type PaginatedEnvelope } from './envelope.ts';

declare module 'fastify' {
  interface FastifyReply {
    success<T>(statusCode: number, message: string, data: T, code?: string): FastifyReply;
    successPage<T, P>(statusCode: number, message: string, data: T, pagination: P): FastifyReply;
  }
}

export function installSuccessReply(app: FastifyInstance, clock: Clock): void {
  app.decorateReply('success', function success<T>(this: FastifyReply, statusCode: number, message: string, data: T, code?: string) {
    // A literal, not a spread: this runs for every successful response.
    const body = buildSuccessEnvelope({ statusCode, message, data, requestId: this.request.id, now: clock.now(), code });
    return this.status(statusCode).send(body);
  });
  app.decorateReply('successPage', function successPage<T, P>(this: FastifyReply, statusCode: number, message: string, data: T, pagination: P) {
    const body: PaginatedEnvelope<T, P> = Object.assign(buildSuccessEnvelope({ statusCode, message, data, requestId: this.request.id, now: clock.now() }), { pagination });
    return this.status(statusCode).send(body);
  });
}
