// The client tests' bed: erx listening on 127.0.0.1 on a fresh database (SQLite, or a schema of
// the run's PostgreSQL), a clinic ready to prescribe with a patient, a fault proxy in front of
// erx, and clients whose fetch counts token requests and whose waits are recorded, not slept.
import type net from 'node:net';
import { createErxClient, type ErxClient, type ErxClientOptions } from '../../packages/erx-client/src/index.ts';
import { givenClinic, type Clinic } from '../prescriptions/prescriptions-given.ts';
import { createTestApp, type TestApp } from '../test-app.ts';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';

export interface ClientBed {
  t: TestApp;
  /** erx's own address. */
  url: string;
  proxy: FaultProxy;
  clinic: Clinic;
  close(): Promise<void>;
}

export async function createClientBed(): Promise<ClientBed> {
  const t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
  const proxy = await startFaultProxy(url);
  const clinic = await givenClinic(t);
  return {
    t,
    url,
    proxy,
    clinic,
    async close() {
      await proxy.close();
      await t.close();
    },
  };
}

export interface TestedClient {
  client: ErxClient;
  /** Every URL path the client fetched, in order. */
  fetched: string[];
  tokenRequests: () => number;
  /** Every wait the client asked for, in ms (none is slept). */
  waits: number[];
  /** The client's clock, in ms: move it to make a token due. */
  clock: { ms: number };
}

/** A client of the clinic's prescriber through the proxy (or `baseUrl`), with every scope of the sandbox. */
export function clientOf(bed: ClientBed, overrides: Partial<ErxClientOptions> = {}): TestedClient {
  const fetched: string[] = [];
  const waits: number[] = [];
  const clock = { ms: Date.now() };
  const { g } = bed.clinic;
  const client = createErxClient({
    baseUrl: bed.proxy.url,
    partnerId: g.partnerId,
    partnerSecret: g.partnerSecret,
    organizationId: g.organizationId,
    organizationSecret: g.organizationSecret,
    userId: g.userId,
    scopes: ['create:patient', 'read:patient', 'update:patient', 'read:patient_prescription', 'read:users', 'sandbox:prescribe'],
    fetch: (input, init) => {
      fetched.push(new URL(String(input)).pathname);
      return fetch(input, init);
    },
    sleep: async (ms) => void waits.push(ms),
    now: () => clock.ms,
    ...overrides,
  });
  return { client, fetched, waits, clock, tokenRequests: () => fetched.filter((path) => path === '/v1/token').length };
}
