import { describe, expect, it } from 'vitest';
import { tokenHeaders, useTestApp } from '../given.ts';

const { t, g } = useTestApp(
  {
    env: { ERX_BODY_LIMIT_BYTES: '2048', ERX_ERRORS_BASE: 'https://errors.test/problems/' },
    extend: (app) =>
      app.get('/internal-bug', { config: { auth: { kind: 'public' } } }, async () => {
        throw new Error('database password is hunter2 at /srv/erx/secret.ts:12');
      }),
  },
  (_, { g }) => ({ g }),
);

function expectErrorEnvelope(response: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, slug: string) {
  const body = response.json();
  expect(body).toEqual({
    success: false,
    statusCode: status,
    code: expect.any(String),
    error: { type: `https://errors.test/problems/${slug}`, title: expect.any(String), detail: expect.any(String) },
    timestamp: t.clock.now().toISOString(),
    requestId: response.headers['x-request-id'],
    meta: { apiVersion: '1.0' },
  });
  expect(response.statusCode).toBe(status);
  return body;
}

describe('error envelopes', () => {
  it('answers an unknown route with 404 in the envelope', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/nowhere' });
    expect(expectErrorEnvelope(response, 404, 'not-found').code).toBe('RESOURCE_NOT_FOUND');
  });

  it('answers malformed JSON with 400', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/token',
      headers: { ...tokenHeaders(g), 'content-type': 'application/json' },
      payload: '{"grantType": "client_credentials", ',
    });
    expect(expectErrorEnvelope(response, 400, 'invalid-request').error.detail).toBe('Request body is not valid JSON');
  });

  it('answers a body over the limit with 413', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/token',
      headers: { ...tokenHeaders(g), 'content-type': 'application/json' },
      payload: JSON.stringify({ grantType: 'client_credentials', scope: ['x'.repeat(4096)] }),
    });
    expectErrorEnvelope(response, 413, 'payload-too-large');
  });

  it('answers a non-JSON content type with 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/token',
      headers: { ...tokenHeaders(g), 'content-type': 'text/plain' },
      payload: 'grantType=client_credentials',
    });
    expectErrorEnvelope(response, 415, 'unsupported-media-type');
  });

  it('answers a thrown bug with 500 and no internals, and logs the stack', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/internal-bug' });
    const body = expectErrorEnvelope(response, 500, 'internal-error');
    expect(body.code).toBe('INTERNAL_ERROR');
    expect(response.body).not.toContain('hunter2');
    expect(response.body).not.toContain('secret.ts');
    expect(body.error.detail).toContain(body.requestId);
    const logged = t.logs.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'unhandled error');
    expect(logged.requestId).toBe(body.requestId);
    expect(logged.err.stack).toContain('hunter2');
  });
});

describe('success envelope', () => {
  it('carries the request id in the body and in a header', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/token',
      headers: tokenHeaders(g),
      payload: { grantType: 'client_credentials', scope: ['create:patient'] },
    });
    const body = response.json();
    expect(body.requestId).toMatch(/^req_\d+_[0-9a-z]{8}$/);
    expect(response.headers['x-request-id']).toBe(body.requestId);
    expect(body.timestamp).toBe(t.clock.now().toISOString());
  });
});
