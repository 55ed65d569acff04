// Values that are usually ready at once (a cache hit) and sometimes need a wait (a database
// read, a signature check). Hot paths hand them on as they are instead of wrapping each one in
// a promise: every await costs a turn of the microtask queue, and authenticating a request
// takes three steps.
export type Awaitable<T> = T | Promise<T>;

/** Calls `next` with the value: right now when it is ready, else once the promise settles. */
export function whenReady<T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
