// Runs the app on a socket and stops it cleanly: stop accepting, let in-flight requests
// finish, stop what else runs on the same infrastructure (the webhook dispatcher), then close
// the rate limiter and the database. With ERX_METRICS_PORT, the metrics listener runs beside it
// (startMetricsExposure, also used by `erx worker`).
import type http from 'node:http';
import type { Socket } from 'node:net';
import { buildApp } from './app.ts';
import { buildFeatures, type Features } from './features.ts';
import type { App } from './route-module.ts';
import type { Deps } from './deps.ts';
import { closeDeps } from './runtime.ts';
import { startMetricsListener, type MetricsListener } from './platform/metrics/metrics-listener.ts';
import { watchDeliveryBacklog } from './webhooks/index.ts';

export interface RunningServer {
  app: App;
  url: string;
  /** The metrics listener's base URL (GET /metrics); undefined without ERX_METRICS_PORT. */
  metricsUrl: string | undefined;
  stop(): Promise<void>;
}

/**
 * With ERX_METRICS_PORT (and metrics kept, see createMetrics): the listener on HOST at that port,
 * and what its scrapes read beyond what requests record (the outbox backlog, through the webhooks
 * feature; the database pool). Undefined otherwise: no listener at all.
 */
export async function startMetricsExposure(deps: Deps, features: Pick<Features, 'webhooks'>): Promise<MetricsListener | undefined> {
  const { metrics, config, database } = deps;
  if (!metrics?.enabled || config.metricsPort === undefined) return undefined;
  const unwatch = [watchDeliveryBacklog(features.webhooks)];
  const poolCounts = database.poolCounts;
  if (poolCounts) unwatch.push(metrics.watchDatabasePool(poolCounts));
  const stopWatching = () => unwatch.forEach((stop) => stop());
  try {
    const listener = await startMetricsListener(metrics, { host: config.metricsHost, port: config.metricsPort });
    return {
      url: listener.url,
      close: async () => {
        stopWatching();
        await listener.close();
      },
    };
  } catch (error) {
    stopWatching();
    throw error;
  }
}

function trackConnections(server: http.Server): Set<Socket> {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return open;
}

function askInFlightToClose(connections: Set<Socket>): void {
  for (const socket of connections) {
    // The response a connection is writing (Node's own link from socket to response).
    const response = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (response && !response.headersSent) response.setHeader('connection', 'close');
  }
}

export async function startServer(
  deps: Deps,
  features: Features = buildFeatures(deps),
  build: (deps: Deps, features: Features) => Promise<App> = buildApp,
  options: { beforeClosingDeps?: () => Promise<void> } = {},
): Promise<RunningServer> {
  const app = await build(deps, features);
  let metricsListener: MetricsListener | undefined;
  app.addHook('onClose', async () => {
    try {
      await metricsListener?.close();
      await options.beforeClosingDeps?.();
      // Refusal counts waiting in memory (security-alerts.ts).
      await features.securityAlerts.flush().catch((error: unknown) => deps.logger.error({ err: error }, 'security alert counts not written at shutdown'));
    } finally {
      await closeDeps(deps);
    }
  });
  // Once stopping, the response each open connection still owes asks its client to close the
  // connection, so the connections of requests that were in flight end with them and close()
  // can finish (Fastify answers requests that come later with 503 and `connection: close`).
  // Done to the connections at that moment, not in an onSend hook: any onSend hook puts every
  // response through Fastify's onSend path (BENCHMARKS.md, decisions).
  const connections = trackConnections(app.server);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    askInFlightToClose(connections);
    return app.close();
  };
  try {
    const address = await app.listen({ port: deps.config.port, host: deps.config.host });
    metricsListener = await startMetricsExposure(deps, features);
    return { app, url: address, metricsUrl: metricsListener?.url, stop: () => (stopping ??= stop()) };
  } catch (error) {
    await app.close();
    throw error;
  }
}
