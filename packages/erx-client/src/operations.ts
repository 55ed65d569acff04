// Types of erx's operations, read from the generated `paths` (generated/openapi.ts): which paths
// take which method, and each operation's path parameters, query, body and success body.
import type { paths, webhooks } from './generated/openapi.js';

export type { paths, webhooks };

/** The event types erx sends (the OpenAPI document's `webhooks`). */
export type ErxEventType = keyof webhooks;
/** One webhook delivery's body, the same as the event feed lists: a union told apart by `event_type`. */
export type ErxWebhookEvent = {
  [K in keyof webhooks]: webhooks[K] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never;
}[keyof webhooks];
export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** The paths that have an operation for `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

export type Operation<P extends keyof paths, M extends HttpMethod> = paths[P] extends { [K in M]: infer O } ? O : never;

type IsNever<T> = [T] extends [never] ? true : false;
type Defined<T> = Exclude<T, undefined>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;

export type PathParams<O> = O extends { parameters: { path: infer X } } ? Defined<X> : never;
export type QueryParams<O> = O extends { parameters: { query?: infer X } } ? Defined<X> : never;
export type RequestBody<O> = O extends { requestBody?: infer R } ? JsonOf<Defined<R>> : never;

type SuccessStatus = 200 | 201 | 202 | 204;
/** The JSON body of the operation's success responses. */
export type SuccessBody<O> = O extends { responses: infer R } ? { [S in keyof R]: S extends SuccessStatus ? JsonOf<R[S]> : never }[keyof R] : never;
/** `data` of the success envelope. */
export type SuccessData<O> = SuccessBody<O> extends { data: infer D } ? D : never;

/** What a call of the operation takes: `path`, `query` and `body` when it has them, required when the document says so. */
export type RequestOptions<O> = (IsNever<PathParams<O>> extends true ? { path?: undefined } : { path: PathParams<O> }) &
  (IsNever<QueryParams<O>> extends true ? { query?: undefined } : { query?: QueryParams<O> }) &
  (IsNever<RequestBody<O>> extends true ? { body?: undefined } : O extends { requestBody: object } ? { body: RequestBody<O> } : { body?: RequestBody<O> }) &
  CallOptions;

export interface CallOptions {
  /** Overrides the Idempotency-Key the client generates for a create (the same key is reused across retries). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** A typed call of any operation: method, path template and its options. */
export type Call = <M extends HttpMethod, P extends PathsWith<M>>(method: M, path: P, options: RequestOptions<Operation<P, M>>) => Promise<SuccessBody<Operation<P, M>>>;

/** The body the operation takes. */
export type BodyOf<P extends keyof paths, M extends HttpMethod> = RequestBody<Operation<P, M>>;
/** The query the operation takes. */
export type QueryOf<P extends keyof paths, M extends HttpMethod> = QueryParams<Operation<P, M>>;
/** `data` of the operation's success envelope. */
export type DataOf<P extends keyof paths, M extends HttpMethod> = SuccessData<Operation<P, M>>;
