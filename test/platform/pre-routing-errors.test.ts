// What fails before a route is found still answers in the spec's envelope with a request id:
// a malformed percent-escape (400), a path parameter over the router's limit (414), and a
// request line or headers over the HTTP parser's limit (431). Sent over a real socket, since
// the last one never reaches Fastify's request handling.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../given.ts';

let port: number;

const { t, c } = useTestApp({});
beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as net.AddressInfo).port;
});
afterAll(() => t.app.server.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `head` (request line and headers, without the final blank line) and reads the whole answer. */
function rawRequest(head: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = received.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head!.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(`${head}\r\nConnection: close\r\n\r\n`);
  });
}

function expectEnvelope(response: RawResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = JSON.parse(response.body);
  expect(body).toMatchObject({ success: false, statusCode: status, code, meta: { apiVersion: '1.0' } });
  expect(body.requestId).toMatch(/^req_/);
  expect(response.headers['x-request-id']).toBe(body.requestId);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(body.error.type).toMatch(/^https:\/\/api\.erx\.example\/errors\//);
}

describe('errors before routing', () => {
  it('answers a malformed percent-escape in the path with a 400 envelope', async () => {
    const response = await rawRequest(`GET /v1/organizations/%zz/users HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${c.token}`);
    expectEnvelope(response, 400, 'INVALID_REQUEST');
  });

  it('answers a path parameter longer than the router allows with a 414 envelope', async () => {
    const response = await rawRequest(`GET /v1/organizations/${'a'.repeat(500)}/users HTTP/1.1\r\nHost: 127.0.0.1`);
    expectEnvelope(response, 414, 'URI_TOO_LONG');
  });

  it('answers a request line or headers over the parser limit with a 431 envelope, and logs it', async () => {
    const longLine = await rawRequest(`GET /health?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1`);
    expectEnvelope(longLine, 431, 'HEADERS_TOO_LARGE');
    const longHeader = await rawRequest(`GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'p'.repeat(20_000)}`);
    expectEnvelope(longHeader, 431, 'HEADERS_TOO_LARGE');
    const logged = t.logs.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request refused before routing');
    expect(logged.map((line) => line.requestId)).toContain(JSON.parse(longHeader.body).requestId);
  });

  it('still answers an ordinary request on a new connection', async () => {
    const response = await rawRequest('GET /health HTTP/1.1\r\nHost: 127.0.0.1');
    expect(response.status).toBe(200);
  });
});
