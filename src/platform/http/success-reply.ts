// `reply.success(status, message, data)`: the one way a handler answers, so every success
// body is the spec's envelope with this request's id and the injected clock's time. A response
// that carries more at the top level (a list's `pagination`, the token's OAuth fields) answers
// with `reply.successWith`, which adds those fields beside `data`.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Clock } from '../clock.ts';
import { buildSuccessEnvelope, type SuccessEnvelope } from './envelope.ts';

declare module 'fastify' {
  interface FastifyReply {
    success<T>(statusCode: number, message: string, data: T, code?: string): FastifyReply;
    successWith<T, B extends object>(statusCode: number, message: string, data: T, beside: B): FastifyReply;
  }
}

export function installSuccessReply(app: FastifyInstance, clock: Clock): void {
  app.decorateReply('success', function success<T>(this: FastifyReply, statusCode: number, message: string, data: T, code?: string) {
    // A literal, not a spread: this runs for every successful response.
    const body = buildSuccessEnvelope({ statusCode, message, data, requestId: this.request.id, now: clock.now(), code });
    return this.status(statusCode).send(body);
  });
  app.decorateReply('successWith', function successWith<T, B extends object>(this: FastifyReply, statusCode: number, message: string, data: T, beside: B) {
    const body: SuccessEnvelope<T> & B = Object.assign(buildSuccessEnvelope({ statusCode, message, data, requestId: this.request.id, now: clock.now() }), beside);
    return this.status(statusCode).send(body);
  });
}
