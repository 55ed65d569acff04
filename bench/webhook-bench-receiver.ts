// The webhook bench's receiver, in a process of its own (forked with an IPC channel) so that it
// does not share the dispatcher's event loop: answers every POST 200 at once, and notes when
// each request fully arrived, as wall-clock milliseconds with sub-millisecond precision
// (performance.timeOrigin + performance.now(), comparable across processes of one machine).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// 'count' is what the bench polls while it waits: a number, so that polling costs neither
// process the serialising and parsing of every arrival so far (the whole report is asked once).
export type ReceiverRequest = { type: 'reset' } | { type: 'count' } | { type: 'report' };

export interface ReceiverCount {
  type: 'count';
  /** Distinct events arrived so far. */
  firstArrivals: number;
}

export interface ReceiverReport {
  type: 'report';
  /** event_id → when its first request arrived. */
  firstArrivals: Array<[string, number]>;
  /** When each request arrived, in arrival order. */
  arrivals: number[];
}

const wallNow = () => performance.timeOrigin + performance.now();
let firstArrivals = new Map<string, number>();
let arrivals: number[] = [];

/** The envelope starts {"event_type":"...","event_id":"evt_...": no need to parse the whole body. */
function eventIdOf(body: string): string {
  const start = body.indexOf('"event_id":"') + 12;
  return body.slice(start, body.indexOf('"', start));
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = wallNow();
    arrivals.push(at);
    const eventId = eventIdOf(Buffer.concat(chunks).toString('utf8'));
    if (!firstArrivals.has(eventId)) firstArrivals.set(eventId, at);
    res.writeHead(200, { 'content-length': '0' });
    res.end();
  });
});
server.keepAliveTimeout = 60_000;

process.on('message', (message: ReceiverRequest) => {
  if (message.type === 'reset') {
    firstArrivals = new Map();
    arrivals = [];
    process.send!({ type: 'reset' });
  } else if (message.type === 'count') {
    process.send!({ type: 'count', firstArrivals: firstArrivals.size } satisfies ReceiverCount);
  } else if (message.type === 'report') {
    process.send!({ type: 'report', firstArrivals: [...firstArrivals], arrivals } satisfies ReceiverReport);
  }
});
process.on('disconnect', () => process.exit(0));

server.listen(0, '127.0.0.1', () => {
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port });
});
