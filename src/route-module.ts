// The shape of a route module: a function that registers a feature's routes on the context it
// is given (the JSON API or the portal), calling its own feature's service with the context it
// is handed (app.ts binds each module to what it serves, never the whole set of features).
import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** A module that serves `Context` (its feature's context, and the configuration only where it truly needs it). */
export type RouteModule<Context = unknown> = (app: App, context: Context) => void;
