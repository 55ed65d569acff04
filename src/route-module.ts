// The shape of a route module: a function that registers a feature's routes on the context it
// is given (the JSON API or the portal), calling the built features' services.
import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { Features } from './features.ts';

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

export type RouteModule = (app: App, features: Features, config: Config) => void;

/** A module whose routes exist only in sandbox mode; in production they are never registered, so they answer 404. */
export function sandboxOnly(register: RouteModule): RouteModule {
  return (app, features, config) => {
    if (config.mode === 'sandbox') register(app, features, config);
  };
}
