// Reads a metrics listener as Prometheus does: GET /metrics over a socket, the text format
// parsed into samples (name, labels, value), so tests can ask for one series or count them.
// And the server it scrapes: `erx serve`'s runtime (assembleDeps, startServer) in this process,
// on a fresh data directory or PostgreSQL schema, seeded as the sandbox seeds itself.
import net from 'node:net';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { Deps } from '../../src/deps.ts';
import { buildFeatures, type Features } from '../../src/features.ts';
import { seedSandbox } from '../../src/onboarding/index.ts';
import { type SandboxSeed } from '../../src/onboarding/sandbox-seed.ts';
import { assembleDeps } from '../../src/runtime.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createCliEnvironment } from '../cli/cli-helpers.ts';
import { freePort } from '../own-servers.ts';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  text: string;
  samples: Sample[];
  /** The value of the one sample with exactly these labels; undefined when there is none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** How many samples the metric has (for a histogram, name its _count). */
  seriesCount(name: string): number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

export async function scrapeMetrics(metricsUrl: string): Promise<Scrape> {
  const response = await fetch(`${metricsUrl}/metrics`);
  if (response.status !== 200) throw new Error(`GET ${metricsUrl}/metrics answered ${response.status}`);
  if (!response.headers.get('content-type')?.startsWith('text/plain; version=0.0.4')) throw new Error(`unexpected content type ${response.headers.get('content-type')}`);
  const text = await response.text();
  const samples = parseExposition(text);
  return {
    text,
    samples,
    value(name, labels = {}) {
      const found = samples.filter((sample) => sample.name === name && sameLabels(sample.labels, labels));
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
    seriesCount: (name) => samples.filter((sample) => sample.name === name).length,
  };
}

/** Whether a TCP connection to 127.0.0.1:port is accepted. */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface MeasuredServer {
  deps: Deps;
  features: Features;
  server: RunningServer;
  /** Its metrics listener's base URL. */
  metricsUrl: string;
  seed: SandboxSeed;
  close(): Promise<void>;
}

/** A serving process with ERX_METRICS_PORT set (on a free port), seeded with the sandbox's demo partner. */
export async function startMeasuredServer(env: Record<string, string> = {}): Promise<MeasuredServer> {
  const environment = createCliEnvironment();
  const config = loadConfig({ ...environment.env, PORT: '0', ERX_METRICS_PORT: String(await freePort()), ...env });
  const deps = await assembleDeps(config, { serving: true, exposeMetrics: true });
  const features = buildFeatures(deps);
  const seed = await seedSandbox(features.onboarding, features);
  const server = await startServer(deps, features);
  return {
    deps,
    features,
    server,
    metricsUrl: server.metricsUrl!,
    seed,
    async close() {
      await server.stop();
      await environment.cleanup();
    },
  };
}

export function tokenRequest(seed: SandboxSeed, partnerSecret = seed.partner_secret): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-partner-id': seed.partner_id,
      'x-partner-secret': partnerSecret,
      'x-organization-id': seed.organization_id,
      'x-organization-secret': seed.organization_secret,
      'x-user-id': seed.prescriber.user_id,
    },
    body: JSON.stringify({ grantType: 'client_credentials', scope: ['create:patient', 'read:patient'] }),
  };
}

export async function requestToken({ server, seed }: Pick<MeasuredServer, 'server' | 'seed'>): Promise<string> {
  const response = await fetch(`${server.url}/v1/token`, tokenRequest(seed));
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { accessToken: string } }).data.accessToken;
}
