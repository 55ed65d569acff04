// Runs the app on a socket and stops it cleanly: stop accepting, let in-flight requests
// finish, stop what else runs on the same infrastructure (the webhook dispatcher), then close
// the rate limiter and the database.
import { buildApp } from './app.ts';
import { buildFeatures, type Features } from './features.ts';
import type { App } from './route-module.ts';
import type { Deps } from './deps.ts';
import { closeDeps } from './runtime.ts';

export interface RunningServer {
  app: App;
  url: string;
  stop(): Promise<void>;
}

export async function startServer(
  deps: Deps,
  features: Features = buildFeatures(deps),
  build: (deps: Deps, features: Features) => Promise<App> = buildApp,
  options: { beforeClosingDeps?: () => Promise<void> } = {},
): Promise<RunningServer> {
  const app = await build(deps, features);
  app.addHook('onClose', async () => {
    try {
      await options.beforeClosingDeps?.();
    } finally {
      await closeDeps(deps);
    }
  });
  // Once stopping, every response asks the client to close its keep-alive connection, so
  // the connections of requests that were in flight end with them and close() can finish.
  let stopping: Promise<void> | undefined;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (stopping) reply.header('connection', 'close');
    done(null, payload);
  });
  try {
    const address = await app.listen({ port: deps.config.port, host: deps.config.host });
    return { app, url: address, stop: () => (stopping ??= app.close()) };
  } catch (error) {
    await app.close();
    throw error;
  }
}
