// Real webhook receivers for tests: HTTP servers on 127.0.0.1 that record every request as it
// arrived (raw body, headers, time) and answer as the test says, including the misbehaviours a
// dispatcher must survive: hanging, resetting the connection mid-answer, redirecting.
import http from 'node:http';
import net from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, as a receiver must verify it. */
  body: string;
  /** Date.now() when the request had fully arrived. */
  receivedAt: number;
  /** The envelope's event_id, when the body is one. */
  eventId: string | undefined;
  /** How many requests (this one included) were being answered when it arrived. */
  concurrentAtArrival: number;
}

/** What to answer: a status (and body, after a delay), or a misbehaviour. */
export type Answer = { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hang' | 'reset-mid-response' | 'stall-body';

export type Responder = (request: ReceivedRequest, index: number) => Answer;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** The most requests that were being answered at once. */
  peakConcurrency: () => number;
  /** Connections open now (a closed one has delivered all its requests first). */
  openConnections: () => number;
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => ({ status: 200, body: 'ok' })): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<net.Socket>();
  let concurrent = 0;
  let peak = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      concurrent += 1;
      peak = Math.max(peak, concurrent);
      const received: ReceivedRequest = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body,
        receivedAt: Date.now(),
        eventId: eventIdOf(body),
        concurrentAtArrival: concurrent,
      };
      requests.push(received);
      const answer = respond(received, requests.length - 1);
      for (const wake of waiters.splice(0)) wake();
      const done = () => (concurrent -= 1);
      res.once('close', done);
      sendAnswer(answer, res, req.socket);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 30_000;
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    requests,
    peakConcurrency: () => peak,
    openConnections: () => sockets.size,
    async waitForRequests(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`receiver got ${requests.length} of ${count} requests within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return requests.slice(0, count);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function sendAnswer(answer: Answer, res: http.ServerResponse, socket: net.Socket): void {
  if (answer === 'hang') return;
  if (answer === 'stall-body') {
    // A 200 status line and the start of a body that never ends.
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '64' });
    res.write('{"received":');
    return;
  }
  if (answer === 'reset-mid-response') {
    // The status line and part of the body, then a TCP reset.
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{"received":');
    setTimeout(() => socket.resetAndDestroy(), 5);
    return;
  }
  const write = () => {
    if (res.destroyed) return;
    res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
    res.end(answer.body ?? '');
  };
  if (answer.delayMs) setTimeout(write, answer.delayMs);
  else write();
}

function eventIdOf(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { event_id?: unknown }).event_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

export function listenOnLoopback(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
  });
}

/** A loopback port nothing listens on (bound, read, closed): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listenOnLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
