// A small real HTTP proxy on 127.0.0.1 in front of an erx server, for the client's tests: each
// request is forwarded to erx unless the test's plan says otherwise, and every request is
// recorded (method, path, headers, what erx answered, what the client got). A plan can forward
// a request and still answer the client with a failure: a create that erx did but whose answer
// was lost on the way back.
import http from 'node:http';
import type net from 'node:net';

export interface ProxiedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** erx's status, when the request was forwarded. */
  upstreamStatus?: number;
  /** erx's headers, when the request was forwarded. */
  upstreamHeaders?: Headers;
  /** The status the client was answered (undefined: the connection was cut). */
  answeredStatus?: number;
}

/** What to do with a request: forward it, answer without forwarding, forward and then answer this instead, or cut the connection. */
export type Plan =
  | 'forward'
  | 'cut'
  | { answer: number; headers?: Record<string, string>; body?: string }
  | { forwardThenAnswer: number; body?: string };

export interface FaultProxy {
  url: string;
  requests: ProxiedRequest[];
  /** Decides for each request, given how many came before it. */
  plan: (request: ProxiedRequest, index: number) => Plan;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

async function forward(target: string, request: ProxiedRequest): Promise<{ status: number; headers: Headers; body: string }> {
  const headers = Object.entries(request.headers).flatMap(([name, value]) => (HOP_BY_HOP.has(name) || value === undefined ? [] : [[name, String(value)] as [string, string]]));
  const response = await fetch(`${target}${request.url}`, { method: request.method, headers, body: request.body === '' ? undefined : request.body });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

function answer(res: http.ServerResponse, request: ProxiedRequest, status: number, headers: Record<string, string>, body: string): void {
  request.answeredStatus = status;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

async function handle(proxy: FaultProxy, target: string, request: ProxiedRequest, res: http.ServerResponse): Promise<void> {
  const plan = proxy.plan(request, proxy.requests.length - 1);
  if (plan === 'cut') return void res.socket?.destroy();
  if (typeof plan === 'object' && 'answer' in plan) return answer(res, request, plan.answer, plan.headers ?? {}, plan.body ?? '{"proxy":"refused"}');
  const upstream = await forward(target, request);
  request.upstreamStatus = upstream.status;
  request.upstreamHeaders = upstream.headers;
  if (typeof plan === 'object') return answer(res, request, plan.forwardThenAnswer, {}, plan.body ?? '<html>bad gateway</html>');
  const headers: Record<string, string> = {};
  upstream.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') headers[name] = value;
  });
  answer(res, request, upstream.status, headers, upstream.body);
}

/** Starts a proxy in front of `target` (erx's base URL); forwards everything until the test sets `plan`. */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const sockets = new Set<net.Socket>();
  const proxy: FaultProxy = { url: '', requests: [], plan: () => 'forward', close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ProxiedRequest = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      proxy.requests.push(request);
      handle(proxy, target, request, res).catch((error: unknown) => answer(res, request, 599, {}, JSON.stringify({ proxyError: String(error) })));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return proxy;
}
