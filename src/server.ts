// Runs the app on a socket and stops it cleanly: stop accepting, let in-flight requests
// finish, then close the rate limiter and the database.
import { buildApp } from './app.ts';
import type { App, AppDeps } from './app-deps.ts';

export interface RunningServer {
  app: App;
  url: string;
  stop(): Promise<void>;
}

export async function startServer(deps: AppDeps, build: (deps: AppDeps) => Promise<App> = buildApp): Promise<RunningServer> {
  const app = await build(deps);
  app.addHook('onClose', async () => {
    await deps.rateLimiter.close();
    await deps.database.close();
  });
  const address = await app.listen({ port: deps.config.port, host: deps.config.host });
  let stopping: Promise<void> | undefined;
  return {
    app,
    url: address,
    stop: () => (stopping ??= app.close()),
  };
}
