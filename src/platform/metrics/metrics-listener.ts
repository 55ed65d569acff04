// GET /metrics on a listener of its own (ERX_METRICS_PORT, bound to HOST), never on the public
// port: what the service measures about itself is for the operator's Prometheus, not for
// partners. A bare node:http server: one path, no framework, nothing of the API's hooks.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.ts';

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464 */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(metrics: Pick<Metrics, 'scrape'>, options: { host: string; port: number }): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(request.method === 'HEAD' ? undefined : body),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  // A scrape is one short request: connections kept alive between scrapes would only hold stop() up.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
